"""The default socket lookup: the same order as accessoryctl's and the daemon's."""

from __future__ import annotations

from typing import Dict, Optional

from accessoryd import default_socket_path
from accessoryd.paths import SYSTEM_SOCKET


def lookup(
    explicit: Optional[str] = None,
    env: Optional[Dict[str, str]] = None,
    euid: int = 1000,
    system_exists: bool = False,
) -> str:
    return default_socket_path(explicit, env or {}, euid, lambda path: system_exists and path == SYSTEM_SOCKET)


def test_explicit_path_wins() -> None:
    assert lookup("/x.sock", {"ACCESSORYD_SOCKET": "/env.sock"}, system_exists=True) == "/x.sock"


def test_environment_variable_comes_next_unless_empty() -> None:
    assert lookup(env={"ACCESSORYD_SOCKET": "/env.sock"}, system_exists=True) == "/env.sock"
    assert lookup(env={"ACCESSORYD_SOCKET": ""}, system_exists=True) == SYSTEM_SOCKET


def test_system_socket_when_it_exists() -> None:
    assert lookup(env={"XDG_RUNTIME_DIR": "/run/user/1000"}, system_exists=True) == SYSTEM_SOCKET


def test_runtime_dir_for_a_user_without_the_system_socket() -> None:
    env = {"XDG_RUNTIME_DIR": "/run/user/1000"}
    assert lookup(env=env) == "/run/user/1000/accessoryd/accessoryd.sock"


def test_root_without_the_system_socket_still_names_it() -> None:
    # A root daemon's runtime directory is /run/accessoryd: "not running" names the right place.
    assert lookup(env={"XDG_RUNTIME_DIR": "/run/user/0"}, euid=0) == SYSTEM_SOCKET


def test_runtime_dir_must_be_an_absolute_path() -> None:
    assert lookup(env={"XDG_RUNTIME_DIR": ""}) == "/tmp/accessoryd-1000/accessoryd.sock"
    assert lookup(env={"XDG_RUNTIME_DIR": "relative/dir"}) == "/tmp/accessoryd-1000/accessoryd.sock"
    assert lookup(env={"XDG_RUNTIME_DIR": "/run/user/1000/"}) == "/run/user/1000/accessoryd/accessoryd.sock"


def test_tmp_fallback_names_the_user() -> None:
    assert lookup(euid=4242) == "/tmp/accessoryd-4242/accessoryd.sock"
