"""A throwaway OpenSSH server on 127.0.0.1 for the remote tests: `sshd -D -e` on a free port,
its own host key, a user key pair and client configurations in a private temporary folder,
stopped by pid. The user is whoever runs the tests (root included)."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Optional

SSHD = "/usr/sbin/sshd"


def unavailable() -> Optional[str]:
    """Why no server can run here (to fail with, never to skip: install-deps installs them)."""
    if not os.access(SSHD, os.X_OK):
        return f"{SSHD} is missing: install openssh-server (scripts/install-deps.sh does)"
    for program in ("ssh", "ssh-keygen"):
        if shutil.which(program) is None:
            return f"{program} is missing: install openssh-client"
    return None


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


class SSHServer:
    def __init__(self) -> None:
        reason = unavailable()
        if reason:
            raise RuntimeError(reason)
        self.folder = Path(tempfile.mkdtemp(prefix="adpy-ssh-", dir="/tmp"))
        os.chmod(self.folder, 0o700)
        for key in ("host_key", "user_key", "other_host_key"):
            subprocess.run(
                ["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", "accessoryd-test", "-f", str(self.folder / key)],
                check=True,
                stdin=subprocess.DEVNULL,
                timeout=30,
            )
        (self.folder / "authorized_keys").write_text((self.folder / "user_key.pub").read_text())
        if os.geteuid() == 0:
            os.makedirs("/run/sshd", mode=0o755, exist_ok=True)  # sshd's privilege separation folder
        self.log_path = self.folder / "sshd.log"
        self.process: Optional[subprocess.Popen[bytes]] = None
        for _ in range(8):
            self.port = free_port()
            (self.folder / "sshd_config").write_text(
                f"Port {self.port}\nListenAddress 127.0.0.1\nHostKey {self.folder}/host_key\nPidFile none\n"
                f"AuthorizedKeysFile {self.folder}/authorized_keys\nPermitRootLogin prohibit-password\n"
                "PubkeyAuthentication yes\nPasswordAuthentication no\nKbdInteractiveAuthentication no\n"
                "StrictModes no\nUsePAM no\nPrintMotd no\nLogLevel INFO\n"
            )
            with open(self.log_path, "ab") as log:
                process = subprocess.Popen(
                    [SSHD, "-D", "-e", "-f", str(self.folder / "sshd_config")],
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=log,
                )
            deadline = time.monotonic() + 15
            while time.monotonic() < deadline and process.poll() is None:
                if f"Server listening on 127.0.0.1 port {self.port}" in self.log_path.read_text(errors="replace"):
                    self.process = process
                    break
                time.sleep(0.01)
            if self.process is not None:
                break
            if process.poll() is None:
                process.kill()
                process.wait()
        if self.process is None:
            log_text = self.log_path.read_text(errors="replace")
            shutil.rmtree(self.folder, ignore_errors=True)
            raise RuntimeError(f"sshd did not start: {log_text}")
        host_key = (self.folder / "host_key.pub").read_text()
        other_key = (self.folder / "other_host_key.pub").read_text()
        (self.folder / "known_hosts").write_text(f"[127.0.0.1]:{self.port} {host_key}")
        (self.folder / "wrong_known_hosts").write_text(f"[127.0.0.1]:{self.port} {other_key}")

    @property
    def url(self) -> str:
        return f"ssh://127.0.0.1:{self.port}"

    def config(self, wrong_host_key: bool = False) -> str:
        """A client configuration for `ssh -F`: the throwaway key, only this server's host key
        known (or, with `wrong_host_key`, another one), batch mode."""
        name = "ssh_config-wrong" if wrong_host_key else "ssh_config"
        known = "wrong_known_hosts" if wrong_host_key else "known_hosts"
        path = self.folder / name
        path.write_text(
            f"Host *\n  IdentityFile {self.folder}/user_key\n  IdentitiesOnly yes\n  IdentityAgent none\n"
            f"  UserKnownHostsFile {self.folder}/{known}\n  GlobalKnownHostsFile /dev/null\n"
            "  StrictHostKeyChecking yes\n  UpdateHostKeys no\n  BatchMode yes\n  LogLevel ERROR\n"
        )
        return str(path)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
        shutil.rmtree(self.folder, ignore_errors=True)
