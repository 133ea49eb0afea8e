"""A blocking client's subscription: the events one ``subscribe`` asked for, in order."""

from __future__ import annotations

import collections
import threading
import time
from types import TracebackType
from typing import Callable, Deque, Iterator, Optional, Type

from ._protocol import EventFilter, Params
from .errors import ConnectionLost
from .model import Event

__all__ = ["Subscription"]


class Subscription(Iterator[Event]):
    """The events of one :meth:`Client.subscribe`, in the order the daemon sent them.

    Iterating blocks for the next event; it stops after :meth:`close`, and raises
    :class:`ConnectionLost` (once the buffered events are read) when the client ends (or gives
    up reconnecting, or the daemon it reconnected to refuses this subscription). Across a
    daemon restart it goes on by itself: the client subscribes again on the new connection
    (events sent while no daemon ran are not seen). At
    most ``limit`` events wait unread; beyond that the oldest are dropped and counted in
    :attr:`dropped`. Any thread.
    """

    def __init__(
        self, event_filter: EventFilter, params: Params, limit: int, on_close: Callable[[Subscription], None]
    ) -> None:
        self.filter = event_filter
        #: The ``subscribe`` params, sent again after a reconnect.
        self.params = params
        #: Events dropped because they were not read fast enough.
        self.dropped = 0
        self._limit = max(1, limit)
        self._on_close = on_close
        self._events: Deque[Event] = collections.deque()
        self._ready = threading.Condition()
        self._closed = False
        self._lost: Optional[str] = None

    def get(self, timeout: Optional[float] = None) -> Optional[Event]:
        """The next event, or ``None`` if none came within ``timeout`` seconds (``None``: wait
        as long as it takes) or after :meth:`close`."""
        deadline = None if timeout is None else time.monotonic() + timeout
        with self._ready:
            while not self._events:
                if self._closed:
                    return None
                if self._lost is not None:
                    raise ConnectionLost(self._lost)
                remaining = None if deadline is None else deadline - time.monotonic()
                if remaining is not None and remaining <= 0:
                    return None
                self._ready.wait(remaining)
            return self._events.popleft()

    def __next__(self) -> Event:
        event = self.get()
        if event is None:
            raise StopIteration
        return event

    def __iter__(self) -> Subscription:
        return self

    def close(self) -> None:
        """Stops this subscription (the daemon's, when it was the connection's last)."""
        with self._ready:
            if self._closed:
                return
            self._closed = True
            self._events.clear()
            self._ready.notify_all()
        self._on_close(self)

    def __enter__(self) -> Subscription:
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        self.close()

    def _put(self, event: Event) -> None:
        with self._ready:
            if self._closed:
                return
            if len(self._events) >= self._limit:
                self._events.popleft()
                self.dropped += 1
            self._events.append(event)
            self._ready.notify()

    def _end(self, reason: str) -> None:
        with self._ready:
            self._lost = reason
            self._ready.notify_all()
