"""What the RFC 2217 tools tests share: the venv of pinned PyPI programs, accessory-sim and
ser2net started directly (each stopped by pid), free loopback ports."""

from __future__ import annotations

import os
import signal
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path
from typing import Optional

from harness import products, wait_until

REPO = Path(__file__).resolve().parents[2]


def venv() -> Path:
    """The environment scripts/venv-tools.sh made: `$ACCESSORYD_TOOLS_VENV`, else
    .build/venv-tools. Missing is an error (the Makefile's tools-test target makes it)."""
    path = Path(os.environ.get("ACCESSORYD_TOOLS_VENV", REPO / ".build" / "venv-tools"))
    if not os.access(path / "bin" / "esptool", os.X_OK):
        raise RuntimeError(f"{path} has no esptool: run scripts/venv-tools.sh (make tools-test does)")
    return path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def stop(process: subprocess.Popen[bytes], seconds: float = 10) -> None:
    """SIGTERM, a bounded wait, SIGKILL after it."""
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(seconds)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(seconds)


class Simulator:
    """One accessory-sim, its READY line awaited; `link` is its pty's link in a fresh folder."""

    def __init__(self, personality: str, *options: str) -> None:
        self.folder = Path(tempfile.mkdtemp(prefix="adtools-", dir="/tmp"))
        self.link = str(self.folder / "dev")
        self.lines_socket = self.link + ":lines"
        self.err = open(self.folder / "sim.err", "wb")
        self.process = subprocess.Popen(
            [str(products() / "accessory-sim"), "--personality", personality, "--link", self.link]
            + ["--lines-socket", self.lines_socket, *options],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=self.err,
        )
        assert self.process.stdout is not None
        line = self.process.stdout.readline().decode()
        if not line.startswith("READY "):
            stop(self.process)
            raise RuntimeError(f"accessory-sim did not start: {line!r} {self.stderr()}")
        self.pty = line.split()[2]

    def stderr(self) -> str:
        return (self.folder / "sim.err").read_text(errors="replace")

    def stop(self) -> None:
        stop(self.process)
        self.err.close()
        shutil.rmtree(self.folder, ignore_errors=True)


class Ser2net:
    """Debian's ser2net 4.3 in the foreground on one accepter (`telnet(rfc2217),tcp,…` or
    `tcp,…`) to `device`, its port answering before this returns."""

    def __init__(self, device: str, rfc2217: bool, folder: Path) -> None:
        self.port = free_port()
        accepter = f"{'telnet(rfc2217),' if rfc2217 else ''}tcp,127.0.0.1,{self.port}"
        config = folder / f"ser2net-{self.port}.yaml"
        config.write_text(
            "connection: &accessory\n"
            f"  accepter: {accepter}\n"
            f"  connector: serialdev,{device},115200n81,local\n"
            "  options:\n    kickolduser: true\n"
        )
        self.log_path = folder / f"ser2net-{self.port}.log"
        program = "/usr/sbin/ser2net" if os.access("/usr/sbin/ser2net", os.X_OK) else "ser2net"
        with open(self.log_path, "wb") as log:
            self.process = subprocess.Popen(
                [program, "-n", "-d", "-c", str(config)], stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT
            )
        wait_until(lambda: self.answers() or self.process.poll() is not None, 10, "ser2net's port")
        if self.process.poll() is not None:
            raise RuntimeError(f"ser2net exited with {self.process.returncode}: {self.log_path.read_text()}")

    def answers(self) -> bool:
        try:
            with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                return True
        except OSError:
            return False

    def stop(self) -> None:
        stop(self.process)


def esptool(port_url: str, *arguments: str, seconds: float = 90) -> subprocess.CompletedProcess[str]:
    """esptool of the venv on `port_url`, bounded; its output is returned whatever it exits with."""
    return subprocess.run(
        [str(venv() / "bin" / "esptool"), "--port", port_url, *arguments],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=seconds,
    )


def field(output: str, name: str) -> Optional[str]:
    """The value of esptool's `Name:   value` line, if printed."""
    for line in output.splitlines():
        if line.startswith(name + ":"):
            return line.split(":", 1)[1].strip()
    return None
