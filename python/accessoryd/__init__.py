"""A Python client for accessoryd, the daemon that shares serial and RFCOMM accessories.

``accessoryd.Client`` is the blocking client (thread-safe, requests pipelined);
``accessoryd.aio.Client`` is the asyncio one. Both speak the control protocol (newline-delimited
JSON-RPC 2.0 over the daemon's Unix socket; see docs/protocol.md)::

    import accessoryd

    with accessoryd.Client() as client:
        for frame in client.transact("modem", "ATI"):
            print(frame.text)
"""

from . import aio, errors, model
from .calls import Call, Lease
from .client import Client
from .errors import *  # noqa: F403 - the exceptions: errors.__all__
from .model import *  # noqa: F403 - the values: model.__all__
from .paths import default_socket_path
from .stream import RawStream
from .subscription import Subscription

__version__ = "0.1.0"

__all__ = [
    "aio",
    "Client",
    "Call",
    "Lease",
    "Subscription",
    "RawStream",
    "default_socket_path",
]
# The values and the exceptions, as their modules list them: one table each, not a copy.
__all__ += model.__all__
__all__ += errors.__all__
