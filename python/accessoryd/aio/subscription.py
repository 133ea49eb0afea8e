"""An asyncio client's subscription: ``async for event in subscription``."""

from __future__ import annotations

import asyncio
import collections
from types import TracebackType
from typing import Awaitable, Callable, Deque, Optional, Type

from .._protocol import EventFilter
from ..errors import ConnectionLost
from ..model import Event

__all__ = ["Subscription"]


class Subscription:
    """The events of one :meth:`accessoryd.aio.Client.subscribe`: ``async for event in subscription``.

    The iteration stops after :meth:`close` and raises :class:`ConnectionLost` (after the
    buffered events) when the connection ends. One event loop.
    """

    def __init__(self, event_filter: EventFilter, limit: int, on_close: Callable[[Subscription], Awaitable[None]]) -> None:
        self.filter = event_filter
        self.dropped = 0
        self._on_close = on_close
        self._limit = max(1, limit)
        self._events: Deque[Event] = collections.deque()
        self._changed = asyncio.Event()
        self._closed = False
        self._lost: Optional[str] = None

    async def get(self, timeout: Optional[float] = None) -> Optional[Event]:
        """The next event, or ``None`` after ``timeout`` seconds or :meth:`close`."""
        loop = asyncio.get_running_loop()
        deadline = None if timeout is None else loop.time() + timeout
        while not self._events:
            if self._closed:
                return None
            if self._lost is not None:
                raise ConnectionLost(self._lost)
            self._changed.clear()
            remaining = None if deadline is None else deadline - loop.time()
            if remaining is not None and remaining <= 0:
                return None
            try:
                await asyncio.wait_for(self._changed.wait(), remaining)
            except asyncio.TimeoutError:
                return None
        return self._events.popleft()

    def __aiter__(self) -> Subscription:
        return self

    async def __anext__(self) -> Event:
        event = await self.get()
        if event is None:
            raise StopAsyncIteration
        return event

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._events.clear()
        self._changed.set()
        await self._on_close(self)

    async def __aenter__(self) -> Subscription:
        return self

    async def __aexit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        await self.close()

    def _put(self, event: Event) -> None:
        if self._closed:
            return
        if len(self._events) >= self._limit:
            self._events.popleft()
            self.dropped += 1
        self._events.append(event)
        self._changed.set()

    def _end(self, reason: str) -> None:
        self._lost = reason
        self._changed.set()
