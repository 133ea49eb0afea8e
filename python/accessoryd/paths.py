"""Where the daemon's socket is, when the caller does not say: the same lookup as accessoryctl."""

from __future__ import annotations

import os
from typing import Callable, Mapping, Optional

__all__ = [
    "SYSTEM_RUNTIME_DIRECTORY",
    "SYSTEM_SOCKET",
    "default_socket_path",
    "socket_trust",
    "user_runtime_directory",
]

#: The system daemon's runtime directory (systemd's ``RuntimeDirectory=accessoryd``).
SYSTEM_RUNTIME_DIRECTORY = "/run/accessoryd"
#: The system daemon's socket (systemd's socket unit, or the daemon running as root).
SYSTEM_SOCKET = SYSTEM_RUNTIME_DIRECTORY + "/accessoryd.sock"


def default_socket_path(
    explicit: Optional[str] = None,
    environ: Optional[Mapping[str, str]] = None,
    euid: Optional[int] = None,
    exists: Optional[Callable[[str], bool]] = None,
) -> str:
    """The socket to connect to, first found of:

    1. ``explicit`` (a path the caller gave);
    2. ``$ACCESSORYD_SOCKET`` when set and not empty;
    3. ``/run/accessoryd/accessoryd.sock`` when it exists (the system daemon);
    4. the socket of a daemon run by this user: ``/run/accessoryd/accessoryd.sock`` for root,
       else ``$XDG_RUNTIME_DIR/accessoryd/accessoryd.sock`` when ``XDG_RUNTIME_DIR`` is an
       absolute path, else ``/tmp/accessoryd-<euid>/accessoryd.sock``.

    This is the rule accessoryd uses for its own runtime directory and accessoryctl for
    ``--socket``, so a daemon and a client run by the same user meet with no settings.
    ``environ``, ``euid`` and ``exists`` default to this process's; tests pass their own.
    Whatever the path, the clients check it before use (:func:`socket_trust`).
    """
    if explicit is not None:
        return explicit
    env = os.environ if environ is None else environ
    uid = os.geteuid() if euid is None else euid
    from_env = env.get("ACCESSORYD_SOCKET", "")
    if from_env:
        return from_env
    if (something_is_at if exists is None else exists)(SYSTEM_SOCKET):
        return SYSTEM_SOCKET
    return user_runtime_directory(uid, env.get("XDG_RUNTIME_DIR")) + "/accessoryd.sock"


def something_is_at(path: str) -> bool:
    """Whether a name is there, for choosing a socket: something this user may not even look at
    (``EACCES``, a folder it may not enter) is there too, so that connecting to it says
    "permission denied" rather than falling back to another daemon's socket and "not running"."""
    try:
        os.lstat(path)
        return True
    except PermissionError:
        return True
    except OSError:
        return False


def user_runtime_directory(uid: int, xdg_runtime_dir: Optional[str]) -> str:
    """Where a daemon run by ``uid`` keeps its socket when nothing names a place: the system's
    for root, else ``$XDG_RUNTIME_DIR/accessoryd`` (an absolute path only), else
    ``/tmp/accessoryd-<uid>``."""
    if uid == 0:
        return SYSTEM_RUNTIME_DIRECTORY
    if xdg_runtime_dir and xdg_runtime_dir.startswith("/"):
        # One trailing slash dropped, as the daemon does: the very same string, not just the
        # same file.
        return (xdg_runtime_dir[:-1] if xdg_runtime_dir.endswith("/") else xdg_runtime_dir) + "/accessoryd"
    return f"/tmp/accessoryd-{uid}"


def socket_trust(path: str, environ: Optional[Mapping[str, str]] = None, euid: Optional[int] = None) -> Optional[str]:
    """The per-user runtime directory ``path`` is in, when the client must check it, else ``None``.

    The same rule as accessoryctl's (``ClientSocketTrust`` in the daemon's sources), decided by
    where the socket is, not by how the caller came to its path:

    - a socket in the caller's per-user runtime directory (``/tmp/accessoryd-<euid>``, or
      ``$XDG_RUNTIME_DIR/accessoryd``) is checked before and after connecting (see
      :mod:`accessoryd._connect`): another user may have made that directory first;
    - the system socket (``/run/accessoryd/accessoryd.sock``, where only root and systemd make
      names) and any other path (the caller named it) are trusted as they are.
    """
    env = os.environ if environ is None else environ
    uid = os.geteuid() if euid is None else euid
    if path == SYSTEM_SOCKET or uid == 0 or "/" not in path:
        return None
    directory = path[: path.rindex("/")]
    per_user = (user_runtime_directory(uid, env.get("XDG_RUNTIME_DIR")), user_runtime_directory(uid, None))
    return directory if directory in per_user else None
