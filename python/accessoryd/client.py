"""The blocking client: one Unix-socket connection, shared safely by many threads."""

from __future__ import annotations

import itertools
import socket
import threading
from types import TracebackType
from typing import Any, Dict, Iterable, List, Optional, Type

from . import _protocol as wire
from ._protocol import Params, Payload, Tracer
from ._connect import connect_socket
from .calls import Call, Lease
from .errors import AccessorydError, ConnectionLost, ProtocolError, error_from_response
from .model import DaemonStatus, DeviceInfo, DeviceStatus, Frame, frames_from_json
from .paths import default_socket_path
from .remote import Tunnel, resolve_endpoint
from .stream import RawStream, open_raw
from .subscription import Subscription

__all__ = ["Client"]


class Client:
    """A connection to accessoryd.

    Every method may be called from any thread, concurrently: requests are pipelined on the one
    connection and a reader thread hands each reply to its caller by request id. When the
    connection ends (the daemon stops, drops this client, or :meth:`close`), every call in
    flight and every later call raises :class:`ConnectionLost`.

    Durations are in seconds, as Python APIs take them: ``timeout`` bounds the operation once
    the accessory starts it (``None``: the accessory's configured default), ``wait`` bounds the
    time to get a turn (an absent accessory, a full queue ahead, another client's lock;
    ``None``: as long as it takes for the queue, fail at once for an absent accessory).
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
        """Connects to ``path``, else the default socket (see :func:`default_socket_path`); or,
        with ``host`` (``ssh://[user@]host[:port]``, else ``$ACCESSORYD_HOST`` when no ``path``
        is given), to the daemon on that host through ``ssh`` (see :mod:`accessoryd.remote`):
        ``remote_command`` (else ``$ACCESSORYD_REMOTE_COMMAND``, else ``accessoryctl``) runs
        there before ``dial-stdio``, ``ssh_config`` (else ``$ACCESSORYD_SSH_CONFIG``) replaces
        ``~/.ssh/config``. A malformed URL raises :class:`ValueError`; a host that cannot be
        reached makes the first call raise :class:`ConnectionLost` with ssh's message.

        ``trace`` sees every message sent and received; ``event_buffer`` bounds the unread
        events each subscription keeps (older ones are dropped and counted).
        """
        self._endpoint = resolve_endpoint(path, host, remote_command, ssh_config)
        self._tunnel: Optional[Tunnel] = None
        self._trace = trace
        self._event_buffer = event_buffer
        if self._endpoint is not None:
            self.path = str(self._endpoint)
            self._tunnel = Tunnel(self._endpoint)
            self._sock = self._tunnel.sock
        else:
            self.path = default_socket_path(path)
            self._sock = connect_socket(self.path)
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._pending: Dict[int, Call] = {}
        self._subscriptions: List[Subscription] = []
        self._ended: Optional[str] = None
        self._heard_from_daemon = False
        self._answer_watch: Optional[threading.Timer] = None
        self._reader = threading.Thread(target=self._read_loop, name=f"accessoryd-reader {self.path}", daemon=True)
        self._reader.start()

    # -- lifecycle --------------------------------------------------------------------------

    def close(self) -> None:
        """Closes the connection: calls in flight raise :class:`ConnectionLost`, and the daemon
        cancels this client's queued requests and releases its lock. Idempotent."""
        self._end("the client closed the connection")
        if self._answer_watch is not None:
            self._answer_watch.cancel()
        if threading.current_thread() is not self._reader:
            self._reader.join(5)

    @property
    def connected(self) -> bool:
        return self._ended is None

    def __enter__(self) -> Client:
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()

    # -- requests ---------------------------------------------------------------------------

    def submit(self, method: str, params: Optional[Params] = None) -> Call:
        """Sends a request without waiting: the :class:`Call` gives its id and its result."""
        with self._lock:
            if self._ended is not None:
                raise ConnectionLost(self._ended)
            call = Call(self, next(self._ids), method)
            self._pending[call.id] = call
        self._watch_for_an_answer()
        message = wire.request_message(call.id, method, params)
        if self._trace is not None:
            self._trace("send", message)
        line = wire.encode(message)
        try:
            with self._send_lock:
                self._sock.sendall(line, socket.MSG_NOSIGNAL)
        except OSError as error:
            self._end(f"the connection to accessoryd was lost: {error.strerror or error}")
        return call

    def call(self, method: str, params: Optional[Params] = None) -> Any:
        """Sends a request and waits for its result (the raw JSON value)."""
        return self.submit(method, params).result()

    def devices(self) -> List[DeviceInfo]:
        """The accessories this user may use."""
        result = self.call("devices.list")
        rows = result.get("devices") if isinstance(result, dict) else None
        if not isinstance(rows, list):
            raise ProtocolError(f"devices.list must return a devices array: {result!r}")
        return [DeviceInfo.from_json(row) for row in rows]

    def status(self, name: str) -> DeviceStatus:
        """One accessory's state, settings and counters."""
        return DeviceStatus.from_json(self.call("device.status", {"device": name}))

    def daemon_status(self) -> DaemonStatus:
        """The daemon's version, pid, uptime, clients and counters."""
        return DaemonStatus.from_json(self.call("daemon.status"))

    def transact(self, name: str, data: Payload, timeout: Optional[float] = None, wait: Optional[float] = None) -> List[Frame]:
        """Sends one frame and returns the reply: one frame, or the frames up to and including
        the one matching the accessory's ``response.until`` pattern."""
        return frames_from_json(self.call("transact", wire.transfer_params(name, data, timeout, wait)))

    def write(self, name: str, data: Payload, timeout: Optional[float] = None, wait: Optional[float] = None) -> int:
        """Sends one frame without waiting for a reply; once it left the daemon, returns the
        frame's length (before framing)."""
        result = self.call("write", wire.transfer_params(name, data, timeout, wait))
        written = result.get("written") if isinstance(result, dict) else None
        if not isinstance(written, int):
            raise ProtocolError(f"write must return an integer written: {result!r}")
        return written

    def read(self, name: str, timeout: Optional[float] = None, max_frames: Optional[int] = None) -> List[Frame]:
        """The next frames from the accessory (at most ``max_frames``, default 1). At the
        timeout, what arrived so far; nothing at all raises :class:`~accessoryd.TimedOut`."""
        params: Params = {"device": name}
        wire.put(params, "timeout_ms", wire.milliseconds(timeout, "timeout"))
        wire.put(params, "max_frames", max_frames)
        return frames_from_json(self.call("read", params))

    def subscribe(self, device: Optional[str] = None, events: Optional[Iterable[str]] = None) -> Subscription:
        """Starts notifications for ``device`` (``None``: every accessory this user may see)
        and ``events`` (``"data"``, ``"state"``, ``"traffic"``; ``None``: data and state).
        Iterate the returned :class:`Subscription` for :class:`DataEvent` / :class:`StateEvent` /
        :class:`TrafficEvent` values; close it
        (or leave its ``with`` block) to stop."""
        params, event_filter = wire.subscription_params(device, events)
        subscription = Subscription(event_filter, self._event_buffer, self._unsubscribe)
        with self._lock:
            if self._ended is not None:
                raise ConnectionLost(self._ended)
            # Registered before the request, so that no notification sent right after the
            # daemon's answer is missed.
            self._subscriptions.append(subscription)
        try:
            self.call("subscribe", params)
        except BaseException:
            with self._lock:
                self._subscriptions.remove(subscription)
            raise
        return subscription

    def lock(self, name: str, timeout: Optional[float] = None, lease: Optional[float] = None) -> Lease:
        """Takes an exclusive lock on the accessory, waiting at most ``timeout`` for it;
        ``lease`` bounds how long it lasts. Use as ``with client.lock("modem"): ...``."""
        params: Params = {"device": name}
        wire.put(params, "timeout_ms", wire.milliseconds(timeout, "timeout"))
        wire.put(params, "lease_ms", wire.milliseconds(lease, "lease"))
        result = self.call("lock", params)
        lease_ms = result.get("lease_ms") if isinstance(result, dict) else None
        return Lease(self, name, lease_ms if isinstance(lease_ms, int) else None)

    def unlock(self, name: str) -> None:
        """Releases this client's lock on the accessory."""
        self.call("unlock", {"device": name})

    def cancel(self, request_id: int) -> bool:
        """Cancels an earlier request of this connection; ``True`` when it ended ``cancelled``."""
        result = self.call("cancel", {"id": request_id})
        return bool(result.get("cancelled")) if isinstance(result, dict) else False

    def attach(self, name: str, wait: Optional[float] = None, timeout: Optional[float] = None) -> RawStream:
        """A raw byte stream to the accessory, on a connection of its own: the accessory is
        held (its queue and lock) until the stream is closed. ``timeout`` is the stream's read
        timeout, as pyserial's (``None``: reads block until they have their bytes)."""
        params: Params = {"device": name}
        wire.put(params, "wait_ms", wire.milliseconds(wait, "wait", allow_zero=True))
        if self._endpoint is not None:
            tunnel = Tunnel(self._endpoint)
            return open_raw(tunnel.sock, params, timeout, self._trace, tunnel)
        return open_raw(connect_socket(self.path), params, timeout, self._trace)

    # -- internals --------------------------------------------------------------------------

    def _cancel_quietly(self, request_id: int) -> None:
        """Sends ``cancel`` for ``request_id`` without waiting for its answer."""
        try:
            self.submit("cancel", {"id": request_id})
        except AccessorydError:
            pass

    def _unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            if subscription not in self._subscriptions:
                return
            self._subscriptions.remove(subscription)
            last = not self._subscriptions and self._ended is None
        # The daemon keeps one subscription per connection, the union of what was asked;
        # narrowing it while others remain could take events they want, so it is dropped only
        # with the last one (each Subscription filters its own events meanwhile).
        if last:
            try:
                self.call("unsubscribe")
            except ConnectionLost:
                pass

    # -- a socket that takes connections while no daemon answers -------------------------------

    #: Seconds after the first request before a silent daemon is probed, and before it is given up on.
    ANSWER_PROBE_AFTER = 3.0
    ANSWER_GIVE_UP_AFTER = 6.0

    def _watch_for_an_answer(self) -> None:
        """A systemd socket unit takes connections whether or not its daemon ever starts; a
        client would wait forever. Until the daemon has said anything on this connection, the
        first request arms a timer: if still nothing has come after ``ANSWER_PROBE_AFTER``, a
        second connection asks ``daemon.status``. A daemon that answers it is only busy with
        the request (one waiting for a lock) and is waited for; one that does not by
        ``ANSWER_GIVE_UP_AFTER`` ends the connection, and every call in flight raises
        :class:`ConnectionLost` saying so. Local sockets only: over ``--host`` ssh says why."""
        if self._heard_from_daemon or self._answer_watch is not None or self._tunnel is not None:
            return
        watch = threading.Timer(self.ANSWER_PROBE_AFTER, self._probe_silent_daemon)
        watch.daemon = True
        self._answer_watch = watch
        watch.start()

    def _probe_silent_daemon(self) -> None:
        if self._heard_from_daemon or self._ended is not None:
            return
        try:
            probe = connect_socket(self.path)
        except AccessorydError:
            probe = None
        if probe is not None:
            try:
                probe.settimeout(self.ANSWER_GIVE_UP_AFTER - self.ANSWER_PROBE_AFTER)
                probe.sendall(wire.encode(wire.request_message(1, "daemon.status", None)))
                if probe.recv(1 << 12):
                    return  # alive: the request is merely waiting its turn
            except OSError:
                pass
            finally:
                probe.close()
        if not self._heard_from_daemon:
            self._end(
                f"no daemon answers on {self.path}: it accepts connections, but nothing answered within "
                f"{self.ANSWER_GIVE_UP_AFTER:g} s. Under systemd the socket unit listens even when the daemon "
                "fails to start: see `systemctl status accessoryd` and `journalctl -u accessoryd`"
            )

    def _read_loop(self) -> None:
        reason = "accessoryd closed the connection"
        rest = b""
        try:
            while True:
                try:
                    chunk = self._sock.recv(1 << 16)
                except OSError as error:
                    reason = f"the connection to accessoryd was lost: {error.strerror or error}"
                    if self._tunnel is not None and self._ended is None:
                        reason = self._tunnel.reason()
                    break
                if not chunk:
                    if self._tunnel is not None and self._ended is None:
                        reason = self._tunnel.reason()  # ssh's words, once it has exited
                    break
                self._heard_from_daemon = True
                lines = (rest + chunk).split(b"\n")
                rest = lines.pop()
                for line in lines:
                    self._dispatch(line)
        except ProtocolError as error:
            self._end(str(error), protocol=True)
        except Exception as error:
            # A bug here (or in a trace callback) must not leave callers waiting forever.
            reason = f"the client stopped reading: {error!r}"
        finally:
            self._end(reason)
            self._sock.close()
            if self._tunnel is not None:
                self._tunnel.release()

    def _dispatch(self, line: bytes) -> None:
        message, decoded = wire.decode_line(line)
        if self._trace is not None:
            self._trace("recv", message)
        if isinstance(decoded, wire.Note):
            event = wire.event_from_note(decoded)
            with self._lock:
                targets = [s for s in self._subscriptions if s.filter.wants(event)]
            for subscription in targets:
                subscription._put(event)
            return
        if decoded.id is None:
            # The daemon could not read a request of ours: nothing can say whose it was, and
            # leaving that call waiting would hang it, so the connection ends.
            raise ProtocolError(f"accessoryd refused a request: {decoded.error!r}")
        with self._lock:
            call = self._pending.pop(decoded.id, None)
        if call is None:
            return  # the answer to a cancel sent without waiting, or to a closed call
        if decoded.error is not None:
            call._future.set_exception(error_from_response(decoded.error))
        else:
            call._future.set_result(decoded.result)

    def _end(self, reason: str, protocol: bool = False) -> None:
        with self._lock:
            if self._ended is not None:
                return
            self._ended = reason
            pending = list(self._pending.values())
            self._pending.clear()
            subscriptions = list(self._subscriptions)
        try:
            # Wakes the reader thread, which closes the socket on its way out.
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        for call in pending:
            # One exception each: an instance raised in several threads would share a traceback.
            call._future.set_exception(ProtocolError(reason) if protocol else ConnectionLost(reason))
        for subscription in subscriptions:
            subscription._end(reason)
