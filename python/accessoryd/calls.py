"""What the blocking client hands back for a request in flight (:class:`Call`) and for a lock
(:class:`Lease`)."""

from __future__ import annotations

import concurrent.futures
from types import TracebackType
from typing import TYPE_CHECKING, Any, Optional, Type

from .errors import AccessorydError, ConnectionLost

if TYPE_CHECKING:
    from .client import Client

__all__ = ["Call", "Lease"]


class Call:
    """A request sent to the daemon and perhaps not answered yet (from :meth:`Client.submit`).

    Any thread.
    """

    def __init__(self, client: Client, request_id: int, method: str) -> None:
        self.id = request_id
        self.method = method
        self._client = client
        self._future: concurrent.futures.Future[Any] = concurrent.futures.Future()

    def done(self) -> bool:
        return self._future.done()

    def result(self, timeout: Optional[float] = None) -> Any:
        """The daemon's result (the raw JSON value), or its error raised as an exception.

        ``timeout`` bounds the wait here (the request goes on; builtin :class:`TimeoutError`).
        Interrupted (Ctrl-C), it sends ``cancel`` for the request before re-raising.
        """
        try:
            return self._future.result(timeout)
        except AccessorydError:
            raise  # TimedOut is a TimeoutError too: it must not look like this wait running out
        except concurrent.futures.TimeoutError:
            raise TimeoutError(f"no answer to {self.method} (id {self.id}) within {timeout} s") from None
        except KeyboardInterrupt:
            self._client._cancel_quietly(self.id)
            raise

    def cancel(self) -> bool:
        """Asks the daemon to cancel this request: ``True`` when it ended ``cancelled``
        (:meth:`result` then raises :class:`~accessoryd.Cancelled`), ``False`` when it had
        already finished some other way."""
        return self._client.cancel(self.id)


class Lease:
    """An exclusive lock on an accessory (from :meth:`Client.lock`): other clients' requests
    wait until :meth:`release`, the lease's expiry, or this connection closing. A context
    manager: leaving the ``with`` block releases it. Any thread.

    A lock does not survive the daemon going away: :attr:`lost` turns true, and calls on the
    accessory raise :class:`~accessoryd.LockLost` until the lock is taken again or this lease
    released (which then only forgets it)."""

    def __init__(self, client: Client, device: str, lease_ms: Optional[int]) -> None:
        self.device = device
        #: The lease's length as granted (``None``: until released or disconnected).
        self.lease_ms = lease_ms
        self._client = client
        self._released = False
        #: True once the daemon went away while this lease was held (a new daemon knows nothing of it).
        self.lost = False

    def release(self) -> None:
        """Unlocks (once; later calls do nothing)."""
        if not self._released:
            self._released = True
            if self.lost:
                self._client._forget_lost_lock(self.device)  # the daemon holds nothing to unlock
            else:
                self._client.unlock(self.device)

    def __enter__(self) -> Lease:
        return self

    def __exit__(
        self,
        exc_type: Optional[Type[BaseException]],
        exc: Optional[BaseException],
        tb: Optional[TracebackType],
    ) -> None:
        try:
            self.release()
        except ConnectionLost:
            # The daemon releases the locks of a client that went away; an error already
            # leaving the block says more than this one.
            if exc_type is None:
                raise
