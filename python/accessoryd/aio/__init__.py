"""The asyncio client: the same methods as :class:`accessoryd.Client`, as coroutines.

Usage::

    async with accessoryd.aio.Client() as client:
        frames = await client.transact("modem", "ATI")
"""

from __future__ import annotations

import asyncio
import itertools
from types import TracebackType
from typing import Any, Dict, Iterable, List, Optional, Tuple, Type

from .. import _protocol as wire
from .._protocol import Params, Payload, Tracer
from .._connect import LINE_LIMIT, open_unix
from ..errors import AccessorydError, ConnectionLost, DaemonRestarted, ProtocolError, error_from_response
from ..model import DaemonStatus, DeviceInfo, DeviceStatus, Frame, frames_from_json
from ..paths import default_socket_path
from ..remote import Tunnel, resolve_endpoint
from .lease import Lease, LockRequest
from .stream import RawStream
from .subscription import Subscription

__all__ = ["Client", "connect", "Subscription", "Lease", "RawStream"]

async def connect(
    path: Optional[str] = None,
    *,
    host: Optional[str] = None,
    remote_command: Optional[str] = None,
    ssh_config: Optional[str] = None,
    trace: Optional[Tracer] = None,
    event_buffer: int = 10_000,
) -> Client:
    """A connected :class:`Client` (``path``: else the default socket; ``host``: a remote daemon,
    as for :class:`accessoryd.Client`)."""
    client = Client(
        path, host=host, remote_command=remote_command, ssh_config=ssh_config, trace=trace, event_buffer=event_buffer
    )
    await client.open()
    return client


class Client:
    """A connection to accessoryd for asyncio.

    Any number of tasks may call at once: requests are pipelined on the one connection and each
    reply goes to its caller by request id. Cancelling a task waiting for a call sends the
    daemon ``cancel`` for that request. When the connection ends, every call in flight and
    every later call raises :class:`ConnectionLost`. Durations are seconds, as in
    :class:`accessoryd.Client`. One event loop.
    """

    def __init__(
        self,
        path: Optional[str] = None,
        *,
        host: Optional[str] = None,
        remote_command: Optional[str] = None,
        ssh_config: Optional[str] = None,
        trace: Optional[Tracer] = None,
        event_buffer: int = 10_000,
    ) -> None:
        """Makes a client for ``path`` (else the default socket), or for the daemon on ``host``
        (``ssh://[user@]host[:port]``, else ``$ACCESSORYD_HOST`` when no ``path`` is given; as
        for :class:`accessoryd.Client`); :meth:`open` or ``async with`` connects it."""
        self._endpoint = resolve_endpoint(path, host, remote_command, ssh_config)
        self._tunnel: Optional[Tunnel] = None
        self.path = str(self._endpoint) if self._endpoint is not None else default_socket_path(path)
        self._trace = trace
        self._event_buffer = event_buffer
        self._ids = itertools.count(1)
        # A request id maps to the future of its caller, or None when nobody waits (a cancel
        # sent on behalf of a cancelled task).
        self._pending: Dict[int, Optional[asyncio.Future[Any]]] = {}
        self._subscriptions: List[Subscription] = []
        self._ended: Optional[str] = "not connected yet (call open() or use async with)"
        self._writer: Optional[asyncio.StreamWriter] = None
        self._reader_task: Optional[asyncio.Task[None]] = None
        self._drain_lock: Optional[asyncio.Lock] = None

    async def open(self) -> Client:
        """Connects."""
        reader, writer, self._tunnel = await self._connect()
        self._writer = writer
        self._drain_lock = asyncio.Lock()
        self._ended = None
        self._reader_task = asyncio.ensure_future(self._read_loop(reader))
        return self

    async def close(self) -> None:
        """Closes the connection: calls in flight raise :class:`ConnectionLost`. Idempotent."""
        self._end("the client closed the connection")
        if self._reader_task is not None:
            await asyncio.gather(self._reader_task, return_exceptions=True)

    @property
    def connected(self) -> bool:
        return self._ended is None

    async def __aenter__(self) -> Client:
        if self._writer is None:
            await self.open()
        return self

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        await self.close()

    # -- requests -------------------------------------------------------------------------------

    async def call(self, method: str, params: Optional[Params] = None) -> Any:
        """Sends a request and waits for its result (the raw JSON value). Cancelled while
        waiting, it sends ``cancel`` for the request and re-raises."""
        future: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        request_id = self._send(method, params, future)
        try:
            await self._drain()
            return await future
        except asyncio.CancelledError:
            if self._pending.get(request_id) is future:
                self._pending[request_id] = None  # the answer (cancelled, or the result) is dropped
                self._cancel_quietly(request_id)
            raise

    async def devices(self) -> List[DeviceInfo]:
        result = await self.call("devices.list")
        rows = result.get("devices") if isinstance(result, dict) else None
        if not isinstance(rows, list):
            raise ProtocolError(f"devices.list must return a devices array: {result!r}")
        return [DeviceInfo.from_json(row) for row in rows]

    async def status(self, name: str) -> DeviceStatus:
        return DeviceStatus.from_json(await self.call("device.status", {"device": name}))

    async def daemon_status(self) -> DaemonStatus:
        return DaemonStatus.from_json(await self.call("daemon.status"))

    async def transact(self, name: str, data: Payload, timeout: Optional[float] = None, wait: Optional[float] = None) -> List[Frame]:
        return frames_from_json(await self.call("transact", wire.transfer_params(name, data, timeout, wait)))

    async def write(self, name: str, data: Payload, timeout: Optional[float] = None, wait: Optional[float] = None) -> int:
        result = await self.call("write", wire.transfer_params(name, data, timeout, wait))
        written = result.get("written") if isinstance(result, dict) else None
        if not isinstance(written, int):
            raise ProtocolError(f"write must return an integer written: {result!r}")
        return written

    async def read(self, name: str, timeout: Optional[float] = None, max_frames: Optional[int] = None) -> List[Frame]:
        params: Params = {"device": name}
        wire.put(params, "timeout_ms", wire.milliseconds(timeout, "timeout"))
        wire.put(params, "max_frames", max_frames)
        return frames_from_json(await self.call("read", params))

    async def subscribe(self, device: Optional[str] = None, events: Optional[Iterable[str]] = None) -> Subscription:
        """Starts notifications; ``async for event in subscription`` reads them."""
        params, event_filter = wire.subscription_params(device, events)
        if self._ended is not None:
            raise ConnectionLost(self._ended)
        subscription = Subscription(event_filter, self._event_buffer, self._unsubscribe)
        self._subscriptions.append(subscription)
        try:
            await self.call("subscribe", params)
        except BaseException:
            self._subscriptions.remove(subscription)
            raise
        return subscription

    def lock(self, name: str, timeout: Optional[float] = None, lease: Optional[float] = None) -> LockRequest:
        """``async with client.lock("modem"): ...`` (or ``lease = await client.lock(...)``)."""
        params: Params = {"device": name}
        wire.put(params, "timeout_ms", wire.milliseconds(timeout, "timeout"))
        wire.put(params, "lease_ms", wire.milliseconds(lease, "lease"))
        return LockRequest(self.call, name, params)

    async def unlock(self, name: str) -> None:
        await self.call("unlock", {"device": name})

    async def cancel(self, request_id: int) -> bool:
        result = await self.call("cancel", {"id": request_id})
        return bool(result.get("cancelled")) if isinstance(result, dict) else False

    async def attach(self, name: str, wait: Optional[float] = None) -> RawStream:
        """A raw byte stream to the accessory on a connection of its own (held until closed)."""
        params: Params = {"device": name}
        wire.put(params, "wait_ms", wire.milliseconds(wait, "wait", allow_zero=True))
        reader, writer, tunnel = await self._connect()
        try:
            message = wire.request_message(1, "attach", params)
            if self._trace is not None:
                self._trace("send", message)
            writer.write(wire.encode(message))
            await writer.drain()
            try:
                line = await reader.readuntil(b"\n")
            except asyncio.IncompleteReadError:
                if tunnel is not None:
                    raise ConnectionLost(await _reason(tunnel)) from None
                raise ConnectionLost("accessoryd closed the connection before answering attach") from None
            answer, decoded = wire.decode_line(line[:-1])
            if self._trace is not None:
                self._trace("recv", answer)
            if not isinstance(decoded, wire.Reply) or decoded.id != 1:
                raise ProtocolError(f"accessoryd answered attach with {line[:200]!r}")
            if decoded.error is not None:
                raise error_from_response(decoded.error)
        except OSError as error:
            writer.close()
            if tunnel is not None:
                raise ConnectionLost(await _reason(tunnel)) from None
            raise ConnectionLost(f"the connection to accessoryd was lost: {error.strerror or error}") from None
        except BaseException:
            writer.close()
            if tunnel is not None:
                tunnel.release()
            raise
        return RawStream(name, reader, writer, tunnel)

    async def _connect(self) -> Tuple[asyncio.StreamReader, asyncio.StreamWriter, Optional[Tunnel]]:
        """A new connection: the local socket, or a new ssh child for a remote daemon."""
        if self._endpoint is None:
            reader, writer = await open_unix(self.path)
            return reader, writer, None
        tunnel = Tunnel(self._endpoint)
        sock = tunnel.sock
        sock.setblocking(False)
        reader, writer = await asyncio.open_unix_connection(sock=sock, limit=LINE_LIMIT)
        return reader, writer, tunnel

    # -- internals ------------------------------------------------------------------------------

    def _send(self, method: str, params: Optional[Params], future: Optional[asyncio.Future[Any]]) -> int:
        if self._ended is not None or self._writer is None:
            raise ConnectionLost(self._ended or "not connected")
        request_id = next(self._ids)
        self._pending[request_id] = future
        message = wire.request_message(request_id, method, params)
        if self._trace is not None:
            self._trace("send", message)
        self._writer.write(wire.encode(message))
        return request_id

    async def _drain(self) -> None:
        # One drain at a time: older asyncio versions fail concurrent drains of one writer.
        assert self._drain_lock is not None and self._writer is not None
        try:
            async with self._drain_lock:
                await self._writer.drain()
        except OSError as error:
            self._end(f"the connection to accessoryd was lost: {error.strerror or error}")

    def _cancel_quietly(self, request_id: int) -> None:
        try:
            self._send("cancel", {"id": request_id}, None)
        except AccessorydError:
            pass

    async def _unsubscribe(self, subscription: Subscription) -> None:
        if subscription not in self._subscriptions:
            return
        self._subscriptions.remove(subscription)
        # As in the blocking client: the daemon's subscription (the union) goes with the last.
        if not self._subscriptions and self._ended is None:
            try:
                await self.call("unsubscribe")
            except ConnectionLost:
                pass

    async def _read_loop(self, reader: asyncio.StreamReader) -> None:
        reason = "accessoryd closed the connection"
        try:
            while True:
                line = await reader.readuntil(b"\n")
                self._dispatch(line[:-1])
        except asyncio.IncompleteReadError:
            if self._tunnel is not None and self._ended is None:
                reason = await _reason(self._tunnel)
        except asyncio.LimitOverrunError:
            reason = f"accessoryd sent a line longer than {LINE_LIMIT} bytes"
        except ProtocolError as error:
            self._end(str(error), protocol=True)
        except OSError as error:
            reason = f"the connection to accessoryd was lost: {error.strerror or error}"
            if self._tunnel is not None and self._ended is None:
                reason = await _reason(self._tunnel)
        except Exception as error:
            # A bug here (or in a trace callback) must not leave callers waiting forever.
            reason = f"the client stopped reading: {error!r}"
        finally:
            # The daemon went away (unless the client closed first): what it had not answered
            # was in flight, and is not resent.
            self._end(reason, in_flight=self._tunnel is None)
            if self._tunnel is not None:
                self._tunnel.release()

    def _dispatch(self, line: bytes) -> None:
        message, decoded = wire.decode_line(line)
        if self._trace is not None:
            self._trace("recv", message)
        if isinstance(decoded, wire.Note):
            event = wire.event_from_note(decoded)
            for subscription in list(self._subscriptions):
                if subscription.filter.wants(event):
                    subscription._put(event)
            return
        if decoded.id is None:
            raise ProtocolError(f"accessoryd refused a request: {decoded.error!r}")
        future = self._pending.pop(decoded.id, None)
        if future is None or future.done():
            return
        if decoded.error is not None:
            future.set_exception(error_from_response(decoded.error))
        else:
            future.set_result(decoded.result)

    def _end(self, reason: str, protocol: bool = False, in_flight: bool = False) -> None:
        if self._ended is not None:
            return
        self._ended = reason
        pending = list(self._pending.values())
        self._pending.clear()
        for future in pending:
            if future is not None and not future.done():
                if protocol:
                    future.set_exception(ProtocolError(reason))
                elif in_flight:
                    future.set_exception(
                        DaemonRestarted(
                            f"accessoryd went away with this request in flight ({reason}): it stopped or "
                            "restarted; the request was not resent, and whether the accessory saw it is unknown"
                        )
                    )
                else:
                    future.set_exception(ConnectionLost(reason))
        for subscription in list(self._subscriptions):
            subscription._end(reason)
        if self._writer is not None:
            self._writer.close()
        if self._tunnel is not None:
            self._tunnel.release()


async def _reason(tunnel: Tunnel) -> str:
    """Why a remote connection ended, once ssh has exited (waited for off the event loop)."""
    return await asyncio.get_running_loop().run_in_executor(None, tunnel.reason)
