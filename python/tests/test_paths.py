"""The default socket lookup: the same order as accessoryctl's and the daemon's."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from typing import Dict, Optional

import pytest

from accessoryd import default_socket_path
from accessoryd.paths import SYSTEM_SOCKET
from harness import products


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


CASES = [
    {},
    {"XDG_RUNTIME_DIR": "/run/user/65534"},
    {"XDG_RUNTIME_DIR": "/run/user/65534/"},
    {"XDG_RUNTIME_DIR": "/run/user/65534//"},
    {"XDG_RUNTIME_DIR": "relative"},
    {"XDG_RUNTIME_DIR": ""},
    {"ACCESSORYD_SOCKET": "/tmp/elsewhere/accessoryd.sock", "XDG_RUNTIME_DIR": "/run/user/65534"},
]


@pytest.mark.parametrize("environment", CASES, ids=lambda e: ",".join(f"{k}={v}" for k, v in e.items()) or "none")
def test_accessoryctl_finds_the_same_socket(environment: Dict[str, str]) -> None:
    """accessoryctl names the socket it looked for when no daemon answers: the same path, for
    an unprivileged user (setpriv, as root) in each environment."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        pytest.skip("running accessoryctl as another user needs root and setpriv (util-linux)")
    if os.path.exists(SYSTEM_SOCKET):
        pytest.skip(f"{SYSTEM_SOCKET} exists here: both would pick it")
    env = {"PATH": "/usr/bin:/bin", **environment}
    done = subprocess.run(
        ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", str(products() / "accessoryctl"), "list"],
        env=env,
        capture_output=True,
        text=True,
        timeout=20,
    )
    found = re.search(r"no socket at (\S+?)\)", done.stderr)
    assert done.returncode == 3 and found, done.stderr
    expected = default_socket_path(None, environment, 65534, lambda path: False)
    assert found.group(1) == expected
