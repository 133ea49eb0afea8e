"""Connecting to the daemon's socket, blocking or with asyncio, with errors a person understands."""

from __future__ import annotations

import asyncio
import os
import socket
import stat
import struct
from typing import Optional, Tuple

from .errors import AccessorydError, ConnectFailed, DaemonNotRunning, UnsafeSocket
from .paths import socket_trust

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


_REMEDY = (
    "; another user may have put it there to pose as accessoryd and read what this client sends, "
    "so it is not used. Look at what is there, remove it, and start accessoryd again "
    "(or name the socket with --socket or ACCESSORYD_SOCKET)"
)

_KINDS = {
    stat.S_IFREG: "a regular file",
    stat.S_IFDIR: "a directory",
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
    stat.S_IFIFO: "a FIFO",
}


def _kind(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "a file of unknown type")


def check_before_connect(path: str, directory: Optional[str], uid: int) -> None:
    """For a per-user socket (``directory`` from :func:`socket_trust`): the directory must be a real
    directory of ``uid`` that no group or other user may write, the socket a socket of ``uid``;
    else :class:`UnsafeSocket`, worded as accessoryctl's. What is missing passes: connecting
    then says the daemon is not running. Names are looked at with ``lstat``, never followed."""
    if directory is None:
        return
    try:
        folder = os.lstat(directory)
    except OSError:
        return
    mode = stat.S_IMODE(folder.st_mode)
    where = f" (the directory of {path})"
    if not stat.S_ISDIR(folder.st_mode):
        kind = _kind(folder.st_mode)
        raise UnsafeSocket(
            f"unsafe directory {directory}: it is {kind} owned by uid {folder.st_uid}, not a directory" + where + _REMEDY
        )
    if folder.st_uid != uid:
        raise UnsafeSocket(
            f"unsafe directory {directory}: it is owned by uid {folder.st_uid} (mode {mode:04o}), "
            f"not by this user's uid {uid}" + where + _REMEDY
        )
    if mode & 0o022:
        raise UnsafeSocket(
            f"unsafe directory {directory}: mode {mode:04o} (owner uid {folder.st_uid}) lets other users "
            "add or replace names in it" + where + _REMEDY
        )
    try:
        found = os.lstat(path)
    except OSError:
        return
    if not stat.S_ISSOCK(found.st_mode) or found.st_uid != uid:
        raise UnsafeSocket(
            f"unsafe socket {path}: it is {_kind(found.st_mode)} owned by uid {found.st_uid}, "
            f"not a socket of this user's uid {uid}" + _REMEDY
        )


def check_peer(sock: socket.socket, path: str, directory: Optional[str], uid: int) -> None:
    """For a per-user socket: the process listening on it (``SO_PEERCRED``, recorded by the kernel
    at ``listen``) must run as ``uid`` or as root; else :class:`UnsafeSocket`."""
    if directory is None:
        return
    pid, peer_uid, _ = struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))
    if peer_uid not in (uid, 0):
        raise UnsafeSocket(
            f"unsafe socket {path}: the process listening on it (pid {pid}) runs as uid {peer_uid}, "
            f"not as this user's uid {uid} or root" + _REMEDY
        )


def connect_socket(path: str) -> socket.socket:
    """A connected (blocking) Unix stream socket to ``path``, a per-user one checked before and
    after connecting (:func:`accessoryd.paths.socket_trust`)."""
    uid = os.geteuid()
    directory = socket_trust(path, euid=uid)
    check_before_connect(path, directory, uid)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as error:
        sock.close()
        raise connect_error(path, error) from None
    try:
        check_peer(sock, path, directory, uid)
    except BaseException:
        sock.close()
        raise
    return sock


async def open_unix(path: str) -> Tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    """An asyncio connection to ``path``, checked as :func:`connect_socket`'s."""
    uid = os.geteuid()
    directory = socket_trust(path, euid=uid)
    check_before_connect(path, directory, uid)
    try:
        reader, writer = await asyncio.open_unix_connection(path, limit=LINE_LIMIT)
    except OSError as error:
        raise connect_error(path, error) from None
    try:
        check_peer(writer.get_extra_info("socket"), path, directory, uid)
    except BaseException:
        writer.close()
        raise
    return reader, writer
