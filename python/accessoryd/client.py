"""The blocking client: one Unix-socket connection, shared safely by many threads."""

from __future__ import annotations

import itertools
import socket
import threading
import time
from types import TracebackType
from typing import Any, Dict, Iterable, List, Optional, Set, Type

from . import _protocol as wire
from ._protocol import Params, Payload, Tracer
from ._backoff import LONGEST_STEP, Backoff
from ._connect import connect_socket
from .calls import Call, Lease
from .errors import (
    AccessorydError,
    ConnectFailed,
    ConnectionLost,
    DaemonRestarted,
    LockLost,
    ProtocolError,
    UnsafeSocket,
    error_from_response,
)
from .model import DaemonStatus, DeviceInfo, DeviceStatus, Frame, frames_from_json
from .paths import default_socket_path
from .remote import Tunnel, resolve_endpoint
from .stream import RawStream, open_raw
from .subscription import Subscription

__all__ = ["Client"]


class Client:
    """A connection to accessoryd.

    Every method may be called from any thread, concurrently: requests are pipelined on the one
    connection and a reader thread hands each reply to its caller by request id.

    When the daemon goes away (it stops or restarts, or drops this client), every call in
    flight raises :class:`DaemonRestarted` and is never resent. With ``reconnect`` (the
    default, for a local socket) the client then connects again, with a bounded back-off:
    at once when it has subscriptions (which it re-sends before any other call), else on the
    next call. A call made meanwhile waits for that (at most ``reconnect_timeout`` seconds) and
    is then sent: it never reached the daemon. Locks do not survive: see :class:`LockLost`.
    Without ``reconnect``, or after :meth:`close`, every later call raises
    :class:`ConnectionLost`. docs/python.md says what is and is not retried.

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
        reconnect: bool = True,
        reconnect_timeout: float = 30.0,
    ) -> None:
        """Connects to ``path``, else the default socket (see :func:`default_socket_path`); or,
        with ``host`` (``ssh://[user@]host[:port]``, else ``$ACCESSORYD_HOST`` when no ``path``
        is given), to the daemon on that host through ``ssh`` (see :mod:`accessoryd.remote`):
        ``remote_command`` (else ``$ACCESSORYD_REMOTE_COMMAND``, else ``accessoryctl``) runs
        there before ``dial-stdio``, ``ssh_config`` (else ``$ACCESSORYD_SSH_CONFIG``) replaces
        ``~/.ssh/config``. A malformed URL raises :class:`ValueError`; a host that cannot be
        reached makes the first call raise :class:`ConnectionLost` with ssh's message.

        ``trace`` sees every message sent and received; ``event_buffer`` bounds the unread
        events each subscription keeps (older ones are dropped and counted). ``reconnect``
        (local sockets only: a remote connection ends with ssh) connects again after the daemon
        went away, giving up ``reconnect_timeout`` seconds after the first attempt.
        """
        if reconnect_timeout <= 0:
            raise ValueError(f"reconnect_timeout must be more than 0 seconds, not {reconnect_timeout}")
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
        self._reconnect = reconnect and self._endpoint is None
        self._reconnect_timeout = reconnect_timeout
        self._ids = itertools.count(1)
        self._lock = threading.Lock()
        #: Signalled (under ``_lock``) when a reconnect round ends, either way.
        self._changed = threading.Condition(self._lock)
        self._closing = threading.Event()
        self._send_lock = threading.Lock()
        self._pending: Dict[int, Call] = {}
        self._subscriptions: List[Subscription] = []
        #: Set for good: closed, a protocol error, or gone without ``reconnect``.
        self._ended: Optional[str] = None
        #: Why the connection is down while a reconnect is possible (``None``: it is up).
        self._down: Optional[str] = None
        #: The connection now in use; ``_generation`` counts them, ``_alive`` until it drops.
        self._generation = 1
        self._alive = True
        #: Reconnect rounds: the one running (if ``_reconnecting``), and how the last one failed.
        self._reconnecting = False
        self._round = 0
        self._failed_round = 0
        self._round_failure: Optional[AccessorydError] = None
        #: When the last round succeeded: a daemon that drops the connection again at once (it
        #: crashes at start, an administrator's ``client.disconnect``) is knocked on at most
        #: once per longest back-off step.
        self._restored_at: Optional[float] = None
        #: Locks held (by device), and those lost when the daemon went away.
        self._leases: Dict[str, Lease] = {}
        self._lost_locks: Set[str] = set()
        self._heard_from_daemon = False
        self._answer_watch: Optional[threading.Timer] = None
        self._reader = self._start_reader(self._sock, self._generation)

    # -- lifecycle --------------------------------------------------------------------------

    def close(self) -> None:
        """Closes the connection: calls in flight raise :class:`ConnectionLost`, and the daemon
        cancels this client's queued requests and releases its lock. Idempotent."""
        self._closing.set()
        self._end("the client closed the connection")
        if self._answer_watch is not None:
            self._answer_watch.cancel()
        if threading.current_thread() is not self._reader:
            self._reader.join(5)

    @property
    def connected(self) -> bool:
        """Whether a connection is up now (not closed, not waiting to reconnect)."""
        with self._lock:
            return self._ended is None and self._down is None

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
        """Sends a request without waiting: the :class:`Call` gives its id and its result.
        While the daemon is away (and ``reconnect`` is on), waits for the reconnect first."""
        # Bounded: each wait ends with the round it waited for, itself bounded by
        # reconnect_timeout; a connection that drops before the send is waited for again.
        for _ in range(100):
            call = self._send_on(self._connection(), method, params)
            if call is not None:
                return call
        raise ConnectionLost(f"accessoryd keeps going away: {method} was not sent")

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
        self._check_lock(name)
        return frames_from_json(self.call("transact", wire.transfer_params(name, data, timeout, wait)))

    def write(self, name: str, data: Payload, timeout: Optional[float] = None, wait: Optional[float] = None) -> int:
        """Sends one frame without waiting for a reply; once it left the daemon, returns the
        frame's length (before framing)."""
        self._check_lock(name)
        result = self.call("write", wire.transfer_params(name, data, timeout, wait))
        written = result.get("written") if isinstance(result, dict) else None
        if not isinstance(written, int):
            raise ProtocolError(f"write must return an integer written: {result!r}")
        return written

    def read(self, name: str, timeout: Optional[float] = None, max_frames: Optional[int] = None) -> List[Frame]:
        """The next frames from the accessory (at most ``max_frames``, default 1). At the
        timeout, what arrived so far; nothing at all raises :class:`~accessoryd.TimedOut`."""
        self._check_lock(name)
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
        subscription = Subscription(event_filter, params, self._event_buffer, self._unsubscribe)
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
        held = Lease(self, name, lease_ms if isinstance(lease_ms, int) else None)
        with self._lock:
            self._lost_locks.discard(name)
            self._leases[name] = held
        return held

    def unlock(self, name: str) -> None:
        """Releases this client's lock on the accessory. A lock lost when the daemon went away
        is only forgotten (:class:`LockLost` stops being raised for it)."""
        with self._lock:
            if name in self._lost_locks:
                self._lost_locks.discard(name)
                return
        self.call("unlock", {"device": name})
        with self._lock:
            self._leases.pop(name, None)

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
        """Sends ``cancel`` for ``request_id`` without waiting for its answer (nor for a
        reconnect: a request of a connection that dropped has already failed)."""
        with self._lock:
            usable = self._ended is None and self._down is None
            generation = self._generation
        if usable:
            try:
                self._send_on(generation, "cancel", {"id": request_id})
            except AccessorydError:
                pass

    def _unsubscribe(self, subscription: Subscription) -> None:
        with self._lock:
            if subscription not in self._subscriptions:
                return
            self._subscriptions.remove(subscription)
            last = not self._subscriptions and self._ended is None and self._down is None
        # The daemon keeps one subscription per connection, the union of what was asked;
        # narrowing it while others remain could take events they want, so it is dropped only
        # with the last one (each Subscription filters its own events meanwhile).
        if last:
            try:
                self.call("unsubscribe")
            except ConnectionLost:
                pass

    def _forget_lost_lock(self, device: str) -> None:
        with self._lock:
            self._lost_locks.discard(device)

    def _check_lock(self, device: str) -> None:
        """Raises :class:`LockLost` while the lock on ``device`` is lost and not yet taken again
        or released: the program believed it had the accessory to itself."""
        with self._lock:
            if device in self._lost_locks:
                raise LockLost(
                    f"the lock on {device} was lost when accessoryd went away (it stopped or restarted); "
                    "take it again with lock(), or release the lease to go on without it"
                )

    # -- the connection, and connecting again -------------------------------------------------

    def _connection(self) -> int:
        """The generation of a connection that is up, waiting for a reconnect while the daemon
        is away (starting one when none is running); raises when there is none to wait for."""
        with self._lock:
            if self._ended is not None:
                raise ConnectionLost(self._ended)
            if self._down is None:
                return self._generation
            waiting_for = self._round if self._reconnecting else self._begin_round()
            # Bounded: the round ends (either way) within reconnect_timeout plus one attempt.
            self._changed.wait_for(
                lambda: self._ended is not None or self._down is None or self._failed_round >= waiting_for,
                self._reconnect_timeout + 30,
            )
            if self._ended is not None:
                raise ConnectionLost(self._ended)
            if self._down is None:
                return self._generation
            failure = self._round_failure
        if failure is not None and self._failed_round >= waiting_for:
            raise type(failure)(str(failure))  # one instance per caller: tracebacks are not shared
        raise ConnectionLost(f"accessoryd did not come back within {self._reconnect_timeout:g} s")

    def _send_on(self, generation: int, method: str, params: Optional[Params]) -> Optional[Call]:
        """Sends on connection ``generation``; ``None`` when it is no longer the one up (the
        request was not sent: it may be sent on the next)."""
        with self._lock:
            if self._ended is not None:
                raise ConnectionLost(self._ended)
            if generation != self._generation or not self._alive:
                return None
            call = Call(self, next(self._ids), method)
            self._pending[call.id] = call
            sock = self._sock
        self._watch_for_an_answer()
        message = wire.request_message(call.id, method, params)
        if self._trace is not None:
            self._trace("send", message)
        line = wire.encode(message)
        try:
            with self._send_lock:
                sock.sendall(line, socket.MSG_NOSIGNAL)
        except OSError as error:
            # Perhaps partly written: in flight, so it fails with DaemonRestarted, not resent.
            self._dropped(generation, f"the connection to accessoryd was lost: {error.strerror or error}")
        return call

    def _start_reader(self, sock: socket.socket, generation: int) -> threading.Thread:
        reader = threading.Thread(
            target=self._read_loop, args=(sock, generation), name=f"accessoryd-reader {self.path}", daemon=True
        )
        reader.start()
        return reader

    def _begin_round(self) -> int:
        """Starts a reconnect round on its own thread. Called under ``_lock``."""
        self._reconnecting = True
        self._round += 1
        threading.Thread(target=self._reconnect_round, name=f"accessoryd-reconnect {self.path}", daemon=True).start()
        return self._round

    def _dropped(self, generation: int, reason: str) -> None:
        """Connection ``generation`` ended without :meth:`close`: its calls in flight fail with
        :class:`DaemonRestarted`, its locks are lost; with ``reconnect``, a client with
        subscriptions starts connecting again at once (others on their next call)."""
        if not self._reconnect:
            self._end(reason, in_flight=True)
            return
        with self._lock:
            if self._ended is not None or generation != self._generation or not self._alive:
                return
            self._alive = False
            self._down = reason
            pending = list(self._pending.values())
            self._pending.clear()
            for device, lease in self._leases.items():
                lease.lost = True
                self._lost_locks.add(device)
            self._leases.clear()
            if self._subscriptions and not self._reconnecting:
                self._begin_round()
            sock = self._sock
        try:
            sock.shutdown(socket.SHUT_RDWR)  # wakes this connection's reader, which closes it
        except OSError:
            pass
        for call in pending:
            call._future.set_exception(self._in_flight_error(reason))

    @staticmethod
    def _in_flight_error(reason: str) -> DaemonRestarted:
        return DaemonRestarted(
            f"accessoryd went away with this request in flight ({reason}): it stopped or restarted; "
            "the request was not resent, and whether the accessory saw it is unknown"
        )

    def _reconnect_round(self) -> None:
        """Connects again with a bounded, jittered back-off (:mod:`accessoryd._backoff`); on
        success re-sends the subscriptions, then lets the waiting calls go."""
        backoff = Backoff(self._reconnect_timeout)
        last: AccessorydError = ConnectionLost("accessoryd went away")
        if self._restored_at is not None and time.monotonic() - self._restored_at < LONGEST_STEP:
            self._closing.wait(LONGEST_STEP)
        while not self._closing.is_set():
            try:
                sock = connect_socket(self.path)
            except UnsafeSocket as error:
                self._give_up(error)  # someone else's socket: never tried again by itself
                return
            except ConnectFailed as error:
                last = error
            else:
                if self._resume(sock):
                    return
                last = ConnectionLost("accessoryd went away again while this client re-subscribed")
            wait = backoff.next_wait()
            if wait is None:
                self._give_up(last)
                return
            self._closing.wait(wait)

    def _resume(self, sock: socket.socket) -> bool:
        """Makes ``sock`` the connection, re-sends every subscription before anything else,
        then lets the waiting calls go. ``False`` when it dropped meanwhile."""
        with self._lock:
            if self._ended is not None:
                sock.close()
                return True
            self._generation += 1
            generation = self._generation
            self._sock = sock
            self._alive = True
            self._heard_from_daemon = False
            self._answer_watch = None
            subscriptions = list(self._subscriptions)
        self._reader = self._start_reader(sock, generation)
        for subscription in subscriptions:
            call = self._send_on(generation, "subscribe", subscription.params)
            if call is None:
                return False
            try:
                call.result(self._reconnect_timeout)
            except (ConnectionLost, TimeoutError):
                return False
            except AccessorydError as error:
                # Refused now (the accessory is gone from the configuration, say): that one ends.
                with self._lock:
                    if subscription in self._subscriptions:
                        self._subscriptions.remove(subscription)
                subscription._end(f"accessoryd came back but refused this subscription: {error}")
        with self._lock:
            if generation != self._generation or not self._alive:
                return False
            self._down = None
            self._reconnecting = False
            self._restored_at = time.monotonic()
            self._changed.notify_all()
        return True

    def _give_up(self, error: AccessorydError) -> None:
        """The round failed: the calls waiting for it raise ``error``'s class, the subscriptions
        end. The next call starts a new round."""
        reason = f"gave up reconnecting to accessoryd after {self._reconnect_timeout:g} s: {error}"
        with self._lock:
            self._reconnecting = False
            self._failed_round = self._round
            self._round_failure = type(error)(reason)
            subscriptions = list(self._subscriptions)
            self._subscriptions.clear()
            self._changed.notify_all()
        for subscription in subscriptions:
            subscription._end(reason)

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

    def _read_loop(self, sock: socket.socket, generation: int) -> None:
        reason = "accessoryd closed the connection"
        rest = b""
        try:
            while True:
                try:
                    chunk = sock.recv(1 << 16)
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
            self._end(f"the client stopped reading: {error!r}")
        finally:
            self._dropped(generation, reason)
            sock.close()
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

    def _end(self, reason: str, protocol: bool = False, in_flight: bool = False) -> None:
        """Ends the client for good: calls in flight raise (:class:`DaemonRestarted` when the
        daemon went away, ``in_flight``), later calls :class:`ConnectionLost`."""
        with self._lock:
            if self._ended is not None:
                return
            self._ended = reason
            pending = list(self._pending.values())
            self._pending.clear()
            subscriptions = list(self._subscriptions)
            self._changed.notify_all()
            sock = self._sock
        try:
            # Wakes the reader thread, which closes the socket on its way out.
            sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        for call in pending:
            # One exception each: an instance raised in several threads would share a traceback.
            if protocol:
                call._future.set_exception(ProtocolError(reason))
            elif in_flight:
                call._future.set_exception(self._in_flight_error(reason))
            else:
                call._future.set_exception(ConnectionLost(reason))
        for subscription in subscriptions:
            subscription._end(reason)
