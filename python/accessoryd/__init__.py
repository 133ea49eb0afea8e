"""A Python client for accessoryd, the daemon that shares serial and RFCOMM accessories.

``accessoryd.Client`` is the blocking client (thread-safe, requests pipelined);
``accessoryd.aio.Client`` is the asyncio one. Both speak the control protocol (newline-delimited
JSON-RPC 2.0 over the daemon's Unix socket; see docs/protocol.md)::

    import accessoryd

    with accessoryd.Client() as client:
        for frame in client.transact("modem", "ATI"):
            print(frame.text)
"""

from . import aio
from .calls import Call, Lease
from .client import Client
from .errors import (
    AccessorydError,
    Cancelled,
    ConnectFailed,
    ConnectionLost,
    DaemonNotRunning,
    DeviceIOError,
    DeviceRemoved,
    DeviceUnavailable,
    InternalError,
    InvalidParams,
    InvalidRequest,
    MethodNotFound,
    ParseError,
    PermissionDenied,
    ProtocolError,
    QueueFull,
    TimedOut,
    UnknownDevice,
)
from .model import (
    DaemonStatus,
    DataEvent,
    DeviceInfo,
    DeviceStatus,
    Event,
    Frame,
    Notification,
    StateEvent,
    TrafficEvent,
)
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
    "Frame",
    "DeviceInfo",
    "DeviceStatus",
    "DaemonStatus",
    "DataEvent",
    "StateEvent",
    "TrafficEvent",
    "Notification",
    "Event",
    "default_socket_path",
    "AccessorydError",
    "ParseError",
    "InvalidRequest",
    "MethodNotFound",
    "InvalidParams",
    "InternalError",
    "UnknownDevice",
    "DeviceUnavailable",
    "TimedOut",
    "Cancelled",
    "DeviceRemoved",
    "PermissionDenied",
    "QueueFull",
    "DeviceIOError",
    "ConnectFailed",
    "DaemonNotRunning",
    "ConnectionLost",
    "ProtocolError",
]
