"""The values the client returns: frames, device rows, status snapshots and events. All are
frozen dataclasses: values, safe to share between threads."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Union

from .errors import ProtocolError

__all__ = [
    "Frame",
    "DeviceInfo",
    "DeviceStatus",
    "DaemonStatus",
    "DataEvent",
    "StateEvent",
    "TrafficEvent",
    "Notification",
    "Event",
]


@dataclass(frozen=True)
class Frame:
    """One message from an accessory, with its framing (line ending, SLIP, ...) removed."""

    #: The frame's bytes.
    data: bytes

    @property
    def text(self) -> Optional[str]:
        """The bytes as text, or ``None`` when they are not valid UTF-8."""
        try:
            return self.data.decode("utf-8")
        except UnicodeDecodeError:
            return None

    def __bytes__(self) -> bytes:
        return self.data

    def __str__(self) -> str:
        text = self.text
        return text if text is not None else self.data.hex(" ")

    @classmethod
    def from_json(cls, value: Any) -> Frame:
        """Decodes ``{"data_base64": ..., "data"?: ...}``; ``data_base64`` is authoritative."""
        if not isinstance(value, dict) or not isinstance(value.get("data_base64"), str):
            raise ProtocolError(f"a frame must be an object with a data_base64 string: {value!r}")
        try:
            data = base64.b64decode(value["data_base64"], validate=True)
        except (binascii.Error, ValueError) as error:
            raise ProtocolError(f"a frame's data_base64 is not valid base64: {error}") from None
        return cls(data)


def frames_from_json(result: Any) -> List[Frame]:
    """The ``frames`` array of a ``transact`` or ``read`` result."""
    frames = result.get("frames") if isinstance(result, dict) else None
    if not isinstance(frames, list):
        raise ProtocolError(f"the result needs a frames array: {result!r}")
    return [Frame.from_json(frame) for frame in frames]


@dataclass(frozen=True)
class DeviceInfo:
    """One row of ``devices()``."""

    name: str
    #: ``absent``, ``opening``, ``ready``, ``failed`` or ``disabled``.
    state: str
    #: ``serial``, ``rfcomm`` or ``simulated``.
    transport: str
    #: The device node in use or configured, when one is known.
    path: Optional[str]
    queue_depth: int

    @classmethod
    def from_json(cls, value: Any) -> DeviceInfo:
        try:
            return cls(
                name=_str(value, "name"),
                state=_str(value, "state"),
                transport=_str(value, "transport"),
                path=value.get("path"),
                queue_depth=_int(value, "queue_depth"),
            )
        except (AttributeError, TypeError):
            raise ProtocolError(f"a device row must be an object: {value!r}") from None


@dataclass(frozen=True)
class DeviceStatus:
    """``status(name)``: the accessory's state, settings and counters.

    ``raw`` holds the whole result as the daemon sent it (newer daemons may add members).
    """

    name: str
    state: str
    #: Why it is in that state ("" when there is nothing to say).
    reason: str
    transport: str
    path: Optional[str]
    queue_depth: int
    locked: bool
    #: What identifies the device (``path``, ``vendor_id``, ``simulated``, ...).
    identity: Dict[str, Any]
    #: Serial settings, framing, ``until``, default ``timeout_ms``.
    settings: Dict[str, Any]
    #: ``bytes_in``, ``requests_ok``, ``requests_cancelled``, ``latency_p50_ms``, ...
    counters: Dict[str, Union[int, float]]
    last_error: Optional[str]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, value: Any) -> DeviceStatus:
        if not isinstance(value, dict):
            raise ProtocolError(f"device.status must return an object: {value!r}")
        return cls(
            name=_str(value, "name"),
            state=_str(value, "state"),
            reason=str(value.get("reason") or ""),
            transport=_str(value, "transport"),
            path=value.get("path"),
            queue_depth=_int(value, "queue_depth"),
            locked=bool(value.get("locked", False)),
            identity=dict(value.get("identity") or {}),
            settings=dict(value.get("settings") or {}),
            counters=dict(value.get("counters") or {}),
            last_error=value.get("last_error"),
            raw=value,
        )


@dataclass(frozen=True)
class DaemonStatus:
    """``daemon_status()``: the version and what this user may see of the daemon; ``raw`` has
    every member the daemon sent. Figures about other users' activity (``pid``, ``uptime_s``,
    ``clients``) may be withheld from unprivileged callers: ``None`` then."""

    version: str
    #: The accessories this caller may use, and how many of them are ready.
    accessories: int
    accessories_ready: int
    pid: Optional[int]
    uptime_s: Optional[int]
    clients: Optional[int]
    raw: Dict[str, Any] = field(repr=False, compare=False)

    @classmethod
    def from_json(cls, value: Any) -> DaemonStatus:
        if not isinstance(value, dict):
            raise ProtocolError(f"daemon.status must return an object: {value!r}")
        return cls(
            version=_str(value, "version"),
            accessories=_int(value, "accessories"),
            accessories_ready=_int(value, "accessories_ready"),
            pid=_optional_int(value, "pid"),
            uptime_s=_optional_int(value, "uptime_s"),
            clients=_optional_int(value, "clients"),
            raw=value,
        )


@dataclass(frozen=True)
class DataEvent:
    """``device.data``: a frame no request claimed (or one matching ``unsolicited``)."""

    device: str
    frame: Frame

    @property
    def data(self) -> bytes:
        return self.frame.data


@dataclass(frozen=True)
class StateEvent:
    """``device.state``: the accessory changed state (``reason`` says why, may be "")."""

    device: str
    state: str
    reason: str


@dataclass(frozen=True)
class TrafficEvent:
    """``device.traffic``: bytes that went to (``tx``) or came from (``rx``) the accessory, as
    they crossed the wire, or a modem line set or break sent by a ``control`` request
    (``control``) (subscribed to by name: ``events=["traffic"]``)."""

    device: str
    #: ``"rx"`` (from the device), ``"tx"`` (to it) or ``"control"`` (``data`` is empty).
    direction: str
    data: bytes
    #: Wall-clock time, ISO 8601 UTC with microseconds, and the same in microseconds since 1970.
    timestamp: str
    timestamp_us: int
    #: For ``tx`` and ``control``: the daemon's number for the client whose request wrote the
    #: bytes or set the line, and that request's id; for ``rx``: those of the ``transact`` or
    #: ``read`` that took the frame the bytes end, if one did.
    client: Optional[int] = None
    request: Optional[Union[int, str]] = None
    #: For ``control``: ``{"dtr": bool}``, ``{"rts": bool}`` or ``{"break_ms": int}``.
    control: Optional[Dict[str, Any]] = None


@dataclass(frozen=True)
class Notification:
    """A notification this client has no type for (a newer daemon's): its method and params."""

    method: str
    params: Dict[str, Any]

    @property
    def device(self) -> Optional[str]:
        device = self.params.get("device")
        return device if isinstance(device, str) else None


#: What a subscription yields.
Event = Union[DataEvent, StateEvent, TrafficEvent, Notification]


def event_from_notification(method: str, params: Dict[str, Any]) -> Event:
    """The typed event for a notification line's method and params."""
    if method == "device.data":
        return DataEvent(_str(params, "device"), Frame.from_json(params))
    if method == "device.state":
        return StateEvent(_str(params, "device"), _str(params, "state"), str(params.get("reason") or ""))
    if method == "device.traffic":
        direction = _str(params, "direction")
        control = params.get("control")
        if direction == "control" and not isinstance(control, dict):
            raise ProtocolError(f"expected a 'control' object in {params!r}")
        return TrafficEvent(
            device=_str(params, "device"),
            direction=direction,
            data=b"" if direction == "control" else Frame.from_json(params).data,
            timestamp=_str(params, "timestamp"),
            timestamp_us=_int(params, "timestamp_us"),
            client=_optional_int(params, "client"),
            request=params.get("request"),
            control=control if direction == "control" else None,
        )
    return Notification(method, params)


def _str(value: Any, key: str) -> str:
    member = value.get(key)
    if not isinstance(member, str):
        raise ProtocolError(f"expected a string {key!r} in {value!r}")
    return member


def _int(value: Any, key: str) -> int:
    member = value.get(key)
    if not isinstance(member, int) or isinstance(member, bool):
        raise ProtocolError(f"expected an integer {key!r} in {value!r}")
    return member


def _optional_int(value: Any, key: str) -> Optional[int]:
    return _int(value, key) if key in value else None
