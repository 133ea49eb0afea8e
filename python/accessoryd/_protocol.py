"""The wire format shared by the blocking and the asyncio client: request lines, reply lines,
params built from Python values. Newline-delimited JSON-RPC 2.0; bytes travel as ``data``
(UTF-8 text) or ``data_base64``."""

from __future__ import annotations

import base64
import json
import math
from dataclasses import dataclass
from typing import Any, Callable, Dict, FrozenSet, Iterable, Optional, Tuple, Union

from .errors import ProtocolError
from .model import DataEvent, Event, StateEvent, TrafficEvent, event_from_notification

#: What ``transact`` and ``write`` send: text goes as ``data``, bytes as ``data_base64``.
Payload = Union[bytes, bytearray, memoryview, str]

#: The event kinds ``subscribe`` knows.
EVENT_KINDS = ("data", "state", "traffic")
#: What a subscription without ``events`` gets (traffic only when asked for by name).
DEFAULT_KINDS = frozenset(("data", "state"))

Params = Dict[str, Any]


#: Called with ``("send", message)`` for each request and ``("recv", message)`` for each
#: message from the daemon (the parsed JSON object), on the thread that sends or reads it.
Tracer = Callable[[str, Dict[str, Any]], None]


def request_message(request_id: int, method: str, params: Optional[Params]) -> Dict[str, Any]:
    """The request object (params left out when there are none)."""
    message: Dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
    if params:
        message["params"] = params
    return message


def encode(message: Dict[str, Any]) -> bytes:
    """One line, ``\\n`` included."""
    return (json.dumps(message, separators=(",", ":"), ensure_ascii=False) + "\n").encode("utf-8")


def payload_params(data: Payload) -> Params:
    """``{"data": text}`` for a ``str``, ``{"data_base64": ...}`` for bytes."""
    if isinstance(data, str):
        return {"data": data}
    if isinstance(data, (bytes, bytearray, memoryview)):
        return {"data_base64": base64.b64encode(bytes(data)).decode("ascii")}
    raise TypeError(f"data must be bytes or str, not {type(data).__name__}")


def milliseconds(seconds: Optional[float], name: str, allow_zero: bool = False) -> Optional[int]:
    """A duration in seconds (as Python APIs take them) as the protocol's whole milliseconds.

    Rounded up, so that a short timeout never becomes 0 ("at once") by rounding.
    """
    if seconds is None:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or math.isnan(seconds):
        raise TypeError(f"{name} must be a number of seconds, not {seconds!r}")
    if seconds < 0 or (seconds == 0 and not allow_zero):
        raise ValueError(f"{name} must be {'0 or more' if allow_zero else 'more than 0'} seconds, not {seconds}")
    return int(math.ceil(seconds * 1000))


def transfer_params(device: str, data: Payload, timeout: Optional[float], wait: Optional[float]) -> Params:
    params: Params = {"device": device}
    params.update(payload_params(data))
    put(params, "timeout_ms", milliseconds(timeout, "timeout"))
    put(params, "wait_ms", milliseconds(wait, "wait", allow_zero=True))
    return params


def put(params: Params, key: str, value: Any) -> None:
    """Sets ``key`` unless ``value`` is ``None`` (absent params take the daemon's defaults)."""
    if value is not None:
        params[key] = value


def subscription_params(device: Optional[str], events: Optional[Iterable[str]]) -> Tuple[Params, "EventFilter"]:
    kinds = None if events is None else frozenset(events)
    if kinds is not None:
        unknown = sorted(kinds - set(EVENT_KINDS))
        if unknown or not kinds:
            raise ValueError(f"events must be a non-empty subset of {EVENT_KINDS}, got {sorted(kinds)}")
    params: Params = {}
    put(params, "device", device)
    if kinds is not None:
        params["events"] = sorted(kinds)
    return params, EventFilter(device, kinds)


@dataclass(frozen=True)
class EventFilter:
    """Which notifications one subscription wants. The daemon sends a connection the union of
    its subscriptions; each subscription object keeps only its own."""

    device: Optional[str]
    kinds: Optional[FrozenSet[str]]

    def wants(self, event: Event) -> bool:
        if self.device is not None and event.device != self.device:
            return False
        kinds = DEFAULT_KINDS if self.kinds is None else self.kinds
        if isinstance(event, DataEvent):
            return "data" in kinds
        if isinstance(event, StateEvent):
            return "state" in kinds
        if isinstance(event, TrafficEvent):
            return "traffic" in kinds
        # A notification kind this client has no type for: only for subscriptions without events.
        return self.kinds is None


@dataclass(frozen=True)
class Reply:
    """A response line: its id and either ``result`` or ``error`` (the raw error object)."""

    id: Optional[int]
    result: Any
    error: Any


@dataclass(frozen=True)
class Note:
    """A notification line."""

    method: str
    params: Dict[str, Any]


def decode_line(line: bytes) -> Tuple[Dict[str, Any], Union[Reply, Note]]:
    """Decodes one line from the daemon (without its ``\\n``): the message as parsed, and
    what it is."""
    try:
        message = json.loads(line)
    except (ValueError, UnicodeDecodeError) as error:
        raise ProtocolError(f"the daemon sent a line that is not JSON: {error}") from None
    return message, classify(message, line)


def classify(message: Any, line: bytes) -> Union[Reply, Note]:
    """A parsed message as a :class:`Reply` or a :class:`Note`."""
    if not isinstance(message, dict) or message.get("jsonrpc") != "2.0":
        raise ProtocolError(f"the daemon sent a line that is not a JSON-RPC 2.0 message: {line[:200]!r}")
    if "id" not in message:
        method = message.get("method")
        params = message.get("params", {})
        if not isinstance(method, str) or not isinstance(params, dict):
            raise ProtocolError(f"the daemon sent a malformed notification: {line[:200]!r}")
        return Note(method, params)
    request_id = message["id"]
    if request_id is not None and (not isinstance(request_id, int) or isinstance(request_id, bool)):
        raise ProtocolError(f"the daemon answered an id this client never sends: {request_id!r}")
    if ("result" in message) == ("error" in message):
        raise ProtocolError(f"a response needs exactly one of result and error: {line[:200]!r}")
    return Reply(request_id, message.get("result"), message.get("error"))


def event_from_note(note: Note) -> Event:
    """The typed event a notification carries."""
    return event_from_notification(note.method, note.params)
