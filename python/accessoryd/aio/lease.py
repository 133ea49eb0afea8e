"""Locks for the asyncio client: ``async with client.lock(name): ...``."""

from __future__ import annotations

from types import TracebackType
from typing import Any, Awaitable, Callable, Generator, Optional, Type

from .._protocol import Params
from ..errors import ConnectionLost

__all__ = ["Lease", "LockRequest", "Caller"]

#: Sends one request and returns its result (:meth:`accessoryd.aio.Client.call`).
Caller = Callable[[str, Optional[Params]], Awaitable[Any]]


class LockRequest:
    """What :meth:`accessoryd.aio.Client.lock` returns: await it for a :class:`Lease`, or use it with
    ``async with`` (locks on entry, unlocks on exit). The client's event loop."""

    def __init__(self, call: Caller, device: str, params: Params) -> None:
        self._call = call
        self._device = device
        self._params = params
        self._lease: Optional[Lease] = None

    async def _acquire(self) -> Lease:
        result = await self._call("lock", self._params)
        lease_ms = result.get("lease_ms") if isinstance(result, dict) else None
        self._lease = Lease(self._call, self._device, lease_ms if isinstance(lease_ms, int) else None)
        return self._lease

    def __await__(self) -> Generator[Any, None, Lease]:
        return self._acquire().__await__()

    async def __aenter__(self) -> Lease:
        return await self._acquire()

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        if self._lease is not None:
            await self._lease.__aexit__(exc_type, exc, tb)


class Lease:
    """An exclusive lock on an accessory; ``await lease.release()`` or leave ``async with``.
    The client's event loop."""

    def __init__(self, call: Caller, device: str, lease_ms: Optional[int]) -> None:
        self.device = device
        self.lease_ms = lease_ms
        self._call = call
        self._released = False

    async def release(self) -> None:
        if not self._released:
            self._released = True
            await self._call("unlock", {"device": self.device})

    async def __aenter__(self) -> Lease:
        return self

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        try:
            await self.release()
        except ConnectionLost:
            if exc_type is None:
                raise
