"""Connecting to the daemon's socket, blocking or with asyncio, with errors a person understands."""

from __future__ import annotations

import asyncio
import socket
from typing import Tuple

from .errors import AccessorydError, ConnectFailed, DaemonNotRunning

#: The longest line the asyncio client accepts from the daemon (a `read` of many large frames
#: is one line).
LINE_LIMIT = 1 << 26


def connect_error(path: str, error: OSError) -> AccessorydError:
    """What a failed ``connect`` to ``path`` means, as the exception to raise."""
    if isinstance(error, FileNotFoundError):
        return DaemonNotRunning(f"accessoryd is not running (no socket at {path})")
    if isinstance(error, ConnectionRefusedError):
        return DaemonNotRunning(f"accessoryd is not running (nothing is listening on {path}; the socket file is stale)")
    if isinstance(error, PermissionError):
        return ConnectFailed(
            f"permission denied connecting to accessoryd at {path} "
            "(the socket's owner, group or mode does not allow this user)"
        )
    return ConnectFailed(f"cannot connect to accessoryd at {path}: {error.strerror or error}")


def connect_socket(path: str) -> socket.socket:
    """A connected (blocking) Unix stream socket to ``path``."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as error:
        sock.close()
        raise connect_error(path, error) from None
    return sock


async def open_unix(path: str) -> Tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """An asyncio connection to ``path``."""
    try:
        return await asyncio.open_unix_connection(path, limit=LINE_LIMIT)
    except OSError as error:
        raise connect_error(path, error) from None
