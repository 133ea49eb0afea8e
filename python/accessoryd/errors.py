"""Exceptions: one class per error code of the control protocol, plus connection failures.

Every exception raised by this package is an :class:`AccessorydError`. Errors the daemon
answered carry its ``code``, its ``message`` (a sentence meant for a person) and its ``data``
(extra detail, often ``None``). Failures of the connection itself (:class:`ConnectFailed`,
:class:`ConnectionLost`) have ``code`` ``None`` and are also builtin :class:`ConnectionError`\\ s.
"""

from __future__ import annotations

from typing import Any, Dict, Optional, Type

__all__ = [
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
    "UnsafeSocket",
    "ConnectionLost",
    "DaemonRestarted",
    "LockLost",
    "ProtocolError",
]


class AccessorydError(Exception):
    """The base of every error this package raises.

    ``code`` is the protocol's error code (``None`` for a connection failure), ``message`` the
    daemon's message, ``data`` the error's ``data`` member if it had one.
    """

    #: The protocol code a subclass stands for (``None``: not an error the daemon answers).
    CODE: Optional[int] = None

    def __init__(self, message: str, code: Optional[int] = None, data: Any = None) -> None:
        super().__init__(message)
        self.message = message
        self.code = code if code is not None else type(self).CODE
        self.data = data

    def __str__(self) -> str:
        return self.message


class ParseError(AccessorydError):
    """-32700: the daemon could not parse a line as JSON (a client bug)."""

    CODE = -32700


class InvalidRequest(AccessorydError):
    """-32600: valid JSON but not an acceptable request (e.g. an id already in use)."""

    CODE = -32600


class MethodNotFound(AccessorydError):
    """-32601: the daemon has no such method (an older daemon, or a typo)."""

    CODE = -32601


class InvalidParams(AccessorydError, ValueError):
    """-32602: the method exists but its params are wrong (type, range, unknown name)."""

    CODE = -32602


class InternalError(AccessorydError):
    """-32603: a bug in the daemon."""

    CODE = -32603


class UnknownDevice(AccessorydError, LookupError):
    """1001: no accessory of that name is configured."""

    CODE = 1001


class DeviceUnavailable(AccessorydError):
    """1002: the accessory is absent, failed or disabled (pass ``wait`` to wait for it)."""

    CODE = 1002


class TimedOut(AccessorydError, TimeoutError):
    """1003: no complete reply in time, or a wait (queue, lock, absent device) ran out."""

    CODE = 1003


class Cancelled(AccessorydError):
    """1004: the request was cancelled (by ``cancel``, or its connection closing)."""

    CODE = 1004


class DeviceRemoved(AccessorydError):
    """1005: the accessory was unplugged while the request was queued or in flight."""

    CODE = 1005


class PermissionDenied(AccessorydError, PermissionError):
    """1006: not in the accessory's access lists, or unlocking someone else's lock."""

    CODE = 1006


class QueueFull(AccessorydError):
    """1007: the accessory's queue already holds ``limits.queue_depth`` requests."""

    CODE = 1007


class DeviceIOError(AccessorydError, OSError):
    """1008: the device refused the write, or a frame is too large for the framing."""

    CODE = 1008


class ConnectFailed(AccessorydError, ConnectionError):
    """Connecting to the daemon's socket failed (permissions, a bad path, ...)."""


class DaemonNotRunning(ConnectFailed):
    """Nothing listens at the socket path (no socket file, or a stale one)."""


class UnsafeSocket(ConnectFailed):
    """The socket is in this user's per-user runtime directory (``/tmp/accessoryd-<uid>`` or
    ``$XDG_RUNTIME_DIR/accessoryd``), but that directory, the socket or the process listening on
    it is another user's, who may have put it there to pose as the daemon. Nothing was sent.
    See :func:`accessoryd.paths.socket_trust`."""


class ConnectionLost(AccessorydError, ConnectionError):
    """The connection ended (the daemon stopped or dropped this client, or the client was
    closed) before the answer came. Every call in flight and every later call raises it."""


class DaemonRestarted(ConnectionLost):
    """accessoryd stopped (or restarted) while this request was in flight: it was written to the
    daemon and never answered, or the daemon answered that it is stopping
    (``1002``, ``data.reason`` ``daemon_stopping``). It is not resent: whether the accessory
    saw it is unknown, and only the program knows whether sending it twice is safe."""


class LockLost(ConnectionLost):
    """The lock this client held on the accessory was lost when accessoryd went away (a new
    daemon knows nothing of it). Every call on that accessory raises this until the program
    takes the lock again or releases its :class:`~accessoryd.Lease`."""


class ProtocolError(AccessorydError):
    """The daemon sent something this client does not understand."""


_BY_CODE: Dict[int, Type[AccessorydError]] = {
    cls.CODE: cls
    for cls in (
        ParseError,
        InvalidRequest,
        MethodNotFound,
        InvalidParams,
        InternalError,
        UnknownDevice,
        DeviceUnavailable,
        TimedOut,
        Cancelled,
        DeviceRemoved,
        PermissionDenied,
        QueueFull,
        DeviceIOError,
    )
    if cls.CODE is not None
}


def error_from_response(error: Any) -> AccessorydError:
    """The exception for a JSON-RPC error object (``{"code", "message", "data"?}``).

    A code this client does not know gives a plain :class:`AccessorydError` with that code.
    """
    if not isinstance(error, dict):
        return ProtocolError(f"the daemon sent an error that is not an object: {error!r}")
    code = error.get("code")
    message = error.get("message")
    if not isinstance(code, int) or isinstance(code, bool) or not isinstance(message, str):
        return ProtocolError(f"the daemon sent a malformed error object: {error!r}")
    data = error.get("data")
    if code == DeviceUnavailable.CODE and isinstance(data, dict) and data.get("reason") == "daemon_stopping":
        return DaemonRestarted(
            f"accessoryd stopped or restarted with this request in flight ({message}); it was not resent", code, data
        )
    cls = _BY_CODE.get(code, AccessorydError)
    return cls(message, code, data)
