"""Raw mode for the asyncio client (``attach``)."""

from __future__ import annotations

import asyncio
import socket
from types import TracebackType
from typing import TYPE_CHECKING, Optional, Type

from ..errors import ConnectionLost

if TYPE_CHECKING:
    from ..remote import Tunnel

__all__ = ["RawStream"]


class RawStream:
    """Raw mode for asyncio: the accessory's bytes both ways (``attach``). ``read``/``readline``
    /``readexactly`` as :class:`asyncio.StreamReader`'s; ``write`` then ``await drain()``.
    Closing it gives the accessory back to the other clients. One event loop."""

    def __init__(
        self,
        device: str,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        tunnel: Optional[Tunnel] = None,
    ) -> None:
        self.device = device
        self.reader = reader
        self.writer = writer
        self._tunnel = tunnel

    async def read(self, n: int = -1) -> bytes:
        return await self.reader.read(n)

    async def readexactly(self, n: int) -> bytes:
        try:
            return await self.reader.readexactly(n)
        except asyncio.IncompleteReadError as error:
            raise ConnectionLost(
                f"the raw connection to {self.device} ended after {len(error.partial)} of {n} bytes"
            ) from None

    async def readline(self) -> bytes:
        return await self.reader.readline()

    async def readuntil(self, separator: bytes = b"\n") -> bytes:
        try:
            return await self.reader.readuntil(separator)
        except asyncio.IncompleteReadError:
            raise ConnectionLost(f"the raw connection to {self.device} ended") from None

    def write(self, data: bytes) -> None:
        self.writer.write(data)

    async def drain(self) -> None:
        try:
            await self.writer.drain()
        except OSError as error:
            raise ConnectionLost(f"the raw connection to {self.device} was lost: {error.strerror or error}") from None

    def fileno(self) -> int:
        sock: Optional[socket.socket] = self.writer.get_extra_info("socket")
        if sock is None:
            raise ValueError("the raw stream is closed")
        return sock.fileno()

    def close(self) -> None:
        self.writer.close()
        if self._tunnel is not None:
            self._tunnel.release()  # the ssh child behind a remote stream

    async def wait_closed(self) -> None:
        try:
            await self.writer.wait_closed()
        except OSError:
            pass

    async def __aenter__(self) -> RawStream:
        return self

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()
        await self.wait_closed()
