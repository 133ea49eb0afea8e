"""A per-user socket planted by another local user: the Python clients refuse it as accessoryctl
does (the same rule, `accessoryd.paths.socket_trust`, and the same message), and send nothing."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Dict, Iterator, List, Optional

import pytest

import accessoryd
from accessoryd.paths import SYSTEM_SOCKET, socket_trust
from harness import products, wait_until

ATTACKER = 65533
#: A uid of this module's own (the Swift suite uses others), so that runs do not meet.
VICTIM = 65528
PACKAGE = Path(__file__).resolve().parents[1]


def test_the_per_user_directories_are_checked_and_nothing_else() -> None:
    env = {"XDG_RUNTIME_DIR": "/run/user/1000"}
    assert socket_trust("/run/user/1000/accessoryd/accessoryd.sock", env, 1000) == "/run/user/1000/accessoryd"
    assert socket_trust("/tmp/accessoryd-1000/accessoryd.sock", env, 1000) == "/tmp/accessoryd-1000"
    assert socket_trust("/tmp/accessoryd-1000/other.sock", {}, 1000) == "/tmp/accessoryd-1000"
    # Another user's per-user directory, the system socket, a path elsewhere: as given.
    assert socket_trust("/tmp/accessoryd-1001/accessoryd.sock", env, 1000) is None
    assert socket_trust(SYSTEM_SOCKET, env, 1000) is None
    assert socket_trust("/srv/lab/accessoryd.sock", env, 1000) is None
    # Root's own daemon is the system's.
    assert socket_trust("/tmp/accessoryd-0/accessoryd.sock", {}, 0) is None


def _unavailable() -> Optional[str]:
    if os.geteuid() != 0 or shutil.which("setpriv") is None:
        return "running clients and a daemon as other users needs root and setpriv (util-linux)"
    return None


def _as(uid: int) -> List[str]:
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]


@pytest.fixture
def planted() -> Iterator[Dict[str, str]]:
    """$XDG_RUNTIME_DIR (root's, 0755) whose accessoryd/ another user made first (0755), with that
    user's accessoryd listening in it on a simulated accessory "fake" (echo)."""
    reason = _unavailable()
    if reason:
        pytest.skip(reason)
    folder = Path(tempfile.mkdtemp(prefix="adpy-trust-", dir="/tmp"))
    folder.chmod(0o755)
    xdg = folder / "xdg"
    xdg.mkdir(mode=0o755)
    lair = xdg / "accessoryd"
    lair.mkdir()
    os.chown(lair, ATTACKER, ATTACKER)
    lair.chmod(0o755)
    socket = lair / "accessoryd.sock"
    config = folder / "attacker.yaml"
    config.write_text(
        f'socket:\n  path: {socket}\n  mode: "0666"\naccessories:\n'
        '  - {name: fake, simulate: {personality: echo}, framing: {type: line, delimiter: "\\n"}}\n'
    )
    log = open(folder / "attacker.log", "wb")
    daemon = subprocess.Popen(
        _as(ATTACKER) + [str(products() / "accessoryd"), "--config", str(config), "--runtime-dir", str(lair)],
        stdin=subprocess.DEVNULL,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        wait_until(lambda: socket.exists() or daemon.poll() is not None, 20, "the attacker's socket")
        assert daemon.poll() is None, (folder / "attacker.log").read_text()
        # Root trusts any socket (see socket_trust): this only waits until "fake" is served.
        with accessoryd.Client(str(socket)) as client:
            wait_until(lambda: any(d.name == "fake" and d.state == "ready" for d in client.devices()), 20, "fake")
        yield {"xdg": str(xdg), "lair": str(lair), "socket": str(socket)}
    finally:
        daemon.terminate()
        try:
            daemon.wait(timeout=10)
        except subprocess.TimeoutExpired:
            daemon.kill()
            daemon.wait(timeout=10)
        log.close()
        shutil.rmtree(folder, ignore_errors=True)


VICTIM_SCRIPT = """
import asyncio, sys
import accessoryd
from accessoryd import aio
try:
    with accessoryd.Client() as client:
        print("blocking:", [d.name for d in client.devices()], client.transact("fake", "secret"))
except accessoryd.UnsafeSocket as error:
    print("blocking refused:", error)
async def main():
    try:
        client = await aio.connect()
        print("aio:", [d.name for d in await client.devices()])
        await client.close()
    except accessoryd.UnsafeSocket as error:
        print("aio refused:", error)
asyncio.run(main())
"""


def _victim(command: List[str], xdg: str) -> "subprocess.CompletedProcess[str]":
    env = {"PATH": "/usr/bin:/bin", "XDG_RUNTIME_DIR": xdg, "PYTHONPATH": str(PACKAGE)}
    return subprocess.run(_as(VICTIM) + command, env=env, capture_output=True, text=True, timeout=30)


def test_a_planted_runtime_directory_is_refused_as_accessoryctl_refuses_it(planted: Dict[str, str]) -> None:
    if os.path.exists(SYSTEM_SOCKET):
        pytest.skip(f"{SYSTEM_SOCKET} exists here: the clients would pick it")
    # The system's interpreter: another user may not be able to reach this one's (under /root).
    interpreter = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
    python = _victim([interpreter, "-c", VICTIM_SCRIPT], planted["xdg"])
    print(python.stdout, python.stderr)
    assert "fake" not in python.stdout, python.stdout
    assert "secret" not in python.stdout, python.stdout
    expected = (
        f"unsafe directory {planted['lair']}: it is owned by uid {ATTACKER} (mode 0755), "
        f"not by this user's uid {VICTIM} (the directory of {planted['socket']})"
    )
    refusals = [line for line in python.stdout.splitlines() if "refused:" in line]
    assert len(refusals) == 2 and all(expected in line for line in refusals), python.stdout + python.stderr
    message = refusals[0].split("refused: ", 1)[1]
    ctl = _victim([str(products() / "accessoryctl"), "list"], planted["xdg"])
    assert ctl.returncode == 4, ctl.stderr
    assert "fake" not in ctl.stdout
    assert ctl.stderr.strip() == f"error: {message}", (ctl.stderr, message)


def test_a_listener_of_another_user_in_the_victims_own_directory_is_refused(planted: Dict[str, str]) -> None:
    """The names pass (the victim's directory and socket), only the process behind them tells."""
    if os.path.exists(SYSTEM_SOCKET):
        pytest.skip(f"{SYSTEM_SOCKET} exists here: the clients would pick it")
    xdg = Path(planted["xdg"]).parent / "victim-xdg"
    own = xdg / "accessoryd"
    own.mkdir(parents=True)
    for folder in (xdg, own):
        os.chown(folder, VICTIM, VICTIM)
        folder.chmod(0o700)
    socket = own / "accessoryd.sock"
    os.rename(planted["socket"], socket)
    os.lchown(socket, VICTIM, VICTIM)
    interpreter = "/usr/bin/python3" if os.access("/usr/bin/python3", os.X_OK) else sys.executable
    python = _victim([interpreter, "-c", VICTIM_SCRIPT], str(xdg))
    print(python.stdout, python.stderr)
    assert "fake" not in python.stdout and "secret" not in python.stdout, python.stdout
    refusals = [line for line in python.stdout.splitlines() if "refused:" in line]
    expected = f"unsafe socket {socket}: the process listening on it (pid "
    assert len(refusals) == 2 and all(expected in line for line in refusals), python.stdout + python.stderr
    assert all(f"runs as uid {ATTACKER}, not as this user's uid {VICTIM} or root" in line for line in refusals)
