"""Where the daemon's socket is, when the caller does not say: the same lookup as accessoryctl."""

from __future__ import annotations

import os
from typing import Callable, Mapping, Optional

__all__ = ["SYSTEM_SOCKET", "default_socket_path"]

#: The system daemon's socket (systemd's socket unit, or the daemon running as root).
SYSTEM_SOCKET = "/run/accessoryd/accessoryd.sock"


def default_socket_path(
    explicit: Optional[str] = None,
    environ: Optional[Mapping[str, str]] = None,
    euid: Optional[int] = None,
    exists: Callable[[str], bool] = os.path.exists,
) -> str:
    """The socket to connect to, first found of:

    1. ``explicit`` (a path the caller gave);
    2. ``$ACCESSORYD_SOCKET`` when set and not empty;
    3. ``/run/accessoryd/accessoryd.sock`` when it exists (the system daemon);
    4. ``$XDG_RUNTIME_DIR/accessoryd/accessoryd.sock`` when ``XDG_RUNTIME_DIR`` is set (not
       empty) and the caller is not root (a daemon run by this user);
    5. ``/tmp/accessoryd-<euid>/accessoryd.sock`` (a daemon run by this user without a
       runtime directory).

    ``environ``, ``euid`` and ``exists`` default to this process's; tests pass their own.
    """
    if explicit:
        return explicit
    env = os.environ if environ is None else environ
    uid = os.geteuid() if euid is None else euid
    from_env = env.get("ACCESSORYD_SOCKET", "")
    if from_env:
        return from_env
    if exists(SYSTEM_SOCKET):
        return SYSTEM_SOCKET
    runtime = env.get("XDG_RUNTIME_DIR", "")
    if runtime and uid != 0:
        return os.path.join(runtime, "accessoryd", "accessoryd.sock")
    return f"/tmp/accessoryd-{uid}/accessoryd.sock"
