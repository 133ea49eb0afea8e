"""A labgrid farm on 127.0.0.1 for the tests: a coordinator, an exporter started `--isolated`
with one `NetworkSerialPort`, and the SSH proxy its clients must use (the remote tests'
throwaway sshd). Every process is started here and stopped by pid."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, List

from harness import wait_until
from sshd import SSHServer
from tools import free_port, stop, venv


class Farm:
    """The coordinator, the exporter of `group`'s `NetworkSerialPort` at 127.0.0.1:`port` with
    `protocol`, and the sshd through which the exporter's isolation makes clients reach it."""

    def __init__(self, folder: Path, port: int, protocol: str, group: str = "accessory") -> None:
        self.folder = folder
        self.group = group
        self.exporter_name = "accessoryd-farm"
        self.sshd = SSHServer()
        self.processes: List[subprocess.Popen[bytes]] = []
        try:
            self._start(port, protocol)
        except BaseException:
            self.stop()
            raise

    def _start(self, port: int, protocol: str) -> None:
        # The client's `ssh`: the system's, with this server's configuration, first on PATH. The
        # exporter names the proxy by this machine's name; every name leads to the test's sshd.
        bin_folder = self.folder / "bin"
        bin_folder.mkdir()
        config = Path(self.sshd.config())
        config.write_text(
            f"Host *\n  HostName 127.0.0.1\n  Port {self.sshd.port}\n"
            + config.read_text().split("\n", 1)[1]
        )
        wrapper = bin_folder / "ssh"
        wrapper.write_text(f'#!/bin/sh\nexec /usr/bin/ssh -F {config} "$@"\n')
        wrapper.chmod(0o755)
        self.coordinator_address = f"127.0.0.1:{free_port()}"
        self.env = dict(os.environ)
        self.env["PATH"] = f"{bin_folder}:{venv() / 'bin'}:{os.environ.get('PATH', '/usr/bin:/bin')}"
        self.env["LG_COORDINATOR"] = self.coordinator_address
        self.env.pop("LG_PROXY", None)
        self._spawn("coordinator", ["labgrid-coordinator", "-l", self.coordinator_address])
        exporter_config = self.folder / "exporter.yaml"
        exporter_config.write_text(
            f"{self.group}:\n  NetworkSerialPort:\n    host: 127.0.0.1\n    port: {port}\n"
            f"    speed: 115200\n    protocol: {protocol}\n"
        )
        wait_until(lambda: self.client("places").returncode == 0, 30, "the coordinator to answer")
        self._spawn(
            "exporter",
            ["labgrid-exporter", "-c", self.coordinator_address, "--isolated", "-n", self.exporter_name]
            + [str(exporter_config)],
        )
        wait_until(
            lambda: f"{self.exporter_name}/{self.group}/NetworkSerialPort" in self.client("resources").stdout,
            30,
            "the exporter's resource at the coordinator",
        )

    def _spawn(self, name: str, command: List[str]) -> None:
        # In the farm's folder: the coordinator keeps its places and resources in files there.
        with open(self.folder / f"{name}.log", "wb") as log:
            self.processes.append(
                subprocess.Popen(
                    command, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, env=self.env, cwd=self.folder
                )
            )

    def client(self, *arguments: str, place: str = "") -> subprocess.CompletedProcess[str]:
        """`labgrid-client` (bounded) on this farm's coordinator."""
        command = ["labgrid-client", "-x", self.coordinator_address] + (["-p", place] if place else [])
        return subprocess.run(
            command + list(arguments),
            env=self.env,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            cwd=self.folder,
        )

    def checked_client(self, *arguments: str, place: str = "") -> str:
        run = self.client(*arguments, place=place)
        assert run.returncode == 0, f"labgrid-client {' '.join(arguments)}: {run.stdout}{run.stderr}\n{self.logs()}"
        return run.stdout

    def python(self, script: str, *arguments: str) -> subprocess.Popen[str]:
        """The venv's python running `script` with the farm's environment; output piped."""
        return subprocess.Popen(
            [str(venv() / "bin" / "python"), script, *arguments],
            env=self.env,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            cwd=self.folder,
        )

    def logs(self) -> str:
        parts: Dict[str, str] = {}
        for name in ("coordinator", "exporter"):
            path = self.folder / f"{name}.log"
            parts[name] = path.read_text(errors="replace") if path.exists() else ""
        return "\n".join(f"--- {k}:\n{v}" for k, v in parts.items())

    def stop(self) -> None:
        for process in reversed(self.processes):
            stop(process)
        self.processes = []
        self.sshd.stop()


if __name__ == "__main__":
    sys.exit("a module of the tools tests")
