"""Raw mode: a connection turned into a plain byte stream to one accessory (``attach``),
behind a file-like object with pyserial's reading rules."""

from __future__ import annotations

import io
import select
import socket
import time
from typing import TYPE_CHECKING, Any, Optional

from . import _protocol as wire
from ._protocol import Params, Tracer
from .errors import AccessorydError, ConnectionLost, ProtocolError, error_from_response

if TYPE_CHECKING:
    from .remote import Tunnel

__all__ = ["RawStream", "open_raw"]

_ATTACH_ID = 1


def open_raw(
    sock: socket.socket,
    params: Params,
    timeout: Optional[float],
    trace: Optional[Tracer],
    tunnel: Optional[Tunnel] = None,
) -> RawStream:
    """Sends ``attach`` on the fresh connection ``sock`` and waits for its answer; the bytes
    after the answer's line are already the accessory's. ``tunnel``: the ssh child behind a
    remote connection, released with the stream."""
    try:
        message = wire.request_message(_ATTACH_ID, "attach", params)
        if trace is not None:
            trace("send", message)
        sock.sendall(wire.encode(message), socket.MSG_NOSIGNAL)
        received = b""
        while b"\n" not in received:
            chunk = sock.recv(1 << 16)
            if not chunk:
                if tunnel is not None:
                    raise ConnectionLost(tunnel.reason())
                raise ConnectionLost("accessoryd closed the connection before answering attach")
            received += chunk
        line, _, rest = received.partition(b"\n")
        answer, decoded = wire.decode_line(line)
        if trace is not None:
            trace("recv", answer)
        if not isinstance(decoded, wire.Reply) or decoded.id != _ATTACH_ID:
            raise ProtocolError(f"accessoryd answered attach with {line[:200]!r}")
        if decoded.error is not None:
            raise error_from_response(decoded.error)
        stream = RawStream(sock, params["device"], rest, timeout)
        stream._tunnel = tunnel
        return stream
    except OSError as error:
        sock.close()
        if tunnel is not None:
            raise ConnectionLost(tunnel.reason()) from None
        raise ConnectionLost(f"the connection to accessoryd was lost: {error.strerror or error}") from None
    except AccessorydError:
        sock.close()
        if tunnel is not None:
            tunnel.release()
        raise


class RawStream(io.RawIOBase):
    """The accessory's bytes, both ways, as they are (no framing, no JSON).

    Reads follow pyserial's rules: ``read(size)`` returns once it has ``size`` bytes or
    :attr:`timeout` seconds passed (``None``: wait for all of them; ``0``: what is there now).
    When the daemon ends the stream (the accessory went away, the daemon stopped), reads return
    what was left, then raise :class:`ConnectionLost`. Closing it gives the accessory back to
    the other clients (the daemon resyncs it first). Use from one thread at a time.
    """

    def __init__(self, sock: socket.socket, device: str, initial: bytes, timeout: Optional[float]) -> None:
        super().__init__()
        self.device = device
        self.timeout = timeout
        self._sock = sock
        self._tunnel: Optional[Tunnel] = None
        self._buffer = bytearray(initial)
        self._eof = False

    # -- pyserial-style reading ---------------------------------------------------------------

    def read(self, size: int = 1) -> bytes:
        """Up to ``size`` bytes (all until the end of the stream if ``size`` < 0)."""
        self._check_open()
        if size is None or size < 0:
            return self.readall()
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while len(self._buffer) < size and self._fill(deadline):
            pass
        return self._take(size)

    def readline(self, size: Optional[int] = -1) -> bytes:
        """Up to and including the next ``\\n`` (or ``size`` bytes, or what came before the
        timeout)."""
        self._check_open()
        limit = None if size is None or size < 0 else size
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while True:
            end = self._buffer.find(b"\n")
            if end >= 0 and (limit is None or end < limit):
                return self._take(end + 1)
            if limit is not None and len(self._buffer) >= limit:
                return self._take(limit)
            if not self._fill(deadline):
                return self._take(len(self._buffer))

    def read_until(self, expected: bytes = b"\n", size: Optional[int] = None) -> bytes:
        """Up to and including ``expected`` (pyserial's ``read_until``)."""
        self._check_open()
        deadline = None if self.timeout is None else time.monotonic() + self.timeout
        while True:
            end = self._buffer.find(expected)
            if end >= 0 and (size is None or end + len(expected) <= size):
                return self._take(end + len(expected))
            if size is not None and len(self._buffer) >= size:
                return self._take(size)
            if not self._fill(deadline):
                return self._take(len(self._buffer))

    def readall(self) -> bytes:
        """Everything until the daemon ends the stream."""
        self._check_open()
        while self._fill(None):
            pass
        data = bytes(self._buffer)
        self._buffer.clear()
        return data

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        data = self.read(len(view))
        view[: len(data)] = data
        return len(data)

    @property
    def in_waiting(self) -> int:
        """Bytes that can be read now without waiting."""
        self._check_open()
        self._fill(time.monotonic())
        return len(self._buffer)

    def reset_input_buffer(self) -> None:
        """Discards what was received and not read yet."""
        while self.in_waiting:
            self._buffer.clear()

    # -- writing --------------------------------------------------------------------------------

    def write(self, data: Any) -> int:
        """Sends all of ``data`` to the accessory; returns its length."""
        self._check_open()
        payload = bytes(data)
        try:
            self._sock.sendall(payload, socket.MSG_NOSIGNAL)
        except OSError as error:
            raise ConnectionLost(f"the raw connection to {self.device} was lost: {error.strerror or error}") from None
        return len(payload)

    def flush(self) -> None:
        """Nothing to do: :meth:`write` hands every byte to the socket."""

    # -- file plumbing --------------------------------------------------------------------------

    def fileno(self) -> int:
        return self._sock.fileno()

    def readable(self) -> bool:
        return True

    def writable(self) -> bool:
        return True

    def close(self) -> None:
        if not self.closed:
            self._sock.close()
            if self._tunnel is not None:
                self._tunnel.release()
        super().close()

    @property
    def is_open(self) -> bool:
        """pyserial's name for ``not closed``."""
        return not self.closed

    def _check_open(self) -> None:
        if self.closed:
            raise ValueError("I/O operation on a closed RawStream")

    def _take(self, count: int) -> bytes:
        data = bytes(self._buffer[:count])
        del self._buffer[:count]
        if not data and count > 0 and self._eof:
            raise ConnectionLost(f"the raw connection to {self.device} ended (the accessory went away or the daemon stopped)")
        return data

    def _fill(self, deadline: Optional[float]) -> bool:
        """Receives what arrives before ``deadline`` (``None``: waits); ``False`` when nothing
        did (the deadline passed, or the stream ended)."""
        if self._eof:
            return False
        remaining = None if deadline is None else max(0.0, deadline - time.monotonic())
        readable, _, _ = select.select([self._sock], [], [], remaining)
        if not readable:
            return False
        try:
            chunk = self._sock.recv(1 << 16)
        except OSError:
            chunk = b""
        if not chunk:
            self._eof = True
            return False
        self._buffer += chunk
        return True
