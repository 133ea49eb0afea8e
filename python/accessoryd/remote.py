"""Remote daemons over SSH: ``ssh://[user@]host[:port]``, as ``docker -H ssh://`` does.

The system's ``ssh`` (the user's keys, agent and ``~/.ssh/config``) runs ``accessoryctl
dial-stdio`` on the remote host, which relays to the daemon's socket there; the client speaks
the protocol through ssh's standard input and output, one end of a socket pair. The remote
daemon keeps no network listener and judges the SSH user's own identity. See docs/remote.md.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import threading
from collections import deque
from dataclasses import dataclass
from typing import Deque, List, Mapping, Optional

__all__ = [
    "HOST_VARIABLE",
    "REMOTE_COMMAND_VARIABLE",
    "SSH_CONFIG_VARIABLE",
    "DEFAULT_REMOTE_COMMAND",
    "SSHDestination",
    "Endpoint",
    "resolve_endpoint",
    "remote_command_words",
    "Tunnel",
]

#: Names the remote host when the caller gives neither host nor path.
HOST_VARIABLE = "ACCESSORYD_HOST"
#: The command run on the remote host before ``dial-stdio`` (default ``accessoryctl``).
REMOTE_COMMAND_VARIABLE = "ACCESSORYD_REMOTE_COMMAND"
#: An ssh configuration file used instead of ``~/.ssh/config`` (``ssh -F``).
SSH_CONFIG_VARIABLE = "ACCESSORYD_SSH_CONFIG"
DEFAULT_REMOTE_COMMAND = "accessoryctl"

_NAME = re.compile(r"[A-Za-z0-9._-]+")
_WORD = re.compile(r"[A-Za-z0-9/._+=:,@%-]+")
#: How long ssh may take to exit by itself once the client is done with it.
GRACE_SECONDS = 2.0


@dataclass(frozen=True)
class SSHDestination:
    """A parsed ``ssh://[user@]host[:port]``, checked strictly: its parts become ssh's
    arguments (the user as ``-l``, the port as ``-p``, the host after ``--``)."""

    user: Optional[str]
    host: str
    port: Optional[int]

    @classmethod
    def parse(cls, url: str) -> SSHDestination:
        """Raises :class:`ValueError` with a sentence that says what is wrong."""

        def bad(reason: str) -> ValueError:
            return ValueError(f'invalid host "{url}": {reason}')

        if not url.startswith("ssh://"):
            raise bad("only ssh://[user@]host[:port] is supported")
        rest = url[len("ssh://") :]
        if rest.endswith("/"):
            rest = rest[:-1]
        for char in "/?#":
            if char in rest:
                raise bad(f'a host URL has no path, query or fragment (found "{char}")')
        user: Optional[str] = None
        if "@" in rest:
            name, _, rest = rest.rpartition("@")
            if not _NAME.fullmatch(name) or name.startswith("-"):
                raise bad("the user name must be letters, digits, '.', '_' or '-', not starting with '-' (no password)")
            user = name
        port_text: Optional[str] = None
        if rest.startswith("["):
            close = rest.find("]")
            if close < 0:
                raise bad("an IPv6 address in brackets needs its closing ']'")
            host, after = rest[1:close], rest[close + 1 :]
            if after:
                if not after.startswith(":"):
                    raise bad("unexpected text after the ']'")
                port_text = after[1:]
            if not host or not re.fullmatch(r"[0-9A-Fa-f:.]+", host):
                raise bad("the bracketed host must be an IPv6 address")
        else:
            host, colon, port_text_or_empty = rest.partition(":")
            port_text = port_text_or_empty if colon else None
            if not host:
                raise bad("the host is missing")
            if not _NAME.fullmatch(host) or host.startswith("-"):
                raise bad("the host must be letters, digits, '.', '_' or '-', not starting with '-'")
        port: Optional[int] = None
        if port_text is not None:
            if not re.fullmatch(r"[0-9]{1,5}", port_text) or not 1 <= int(port_text) <= 65535:
                raise bad("the port must be a number from 1 to 65535")
            port = int(port_text)
        return cls(user, host, port)

    def __str__(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return "ssh://" + (f"{self.user}@" if self.user else "") + host + (f":{self.port}" if self.port else "")

    def ssh_arguments(self, remote_command: List[str], config: Optional[str] = None) -> List[str]:
        """ssh's arguments (after the program) that run ``remote_command dial-stdio`` there."""
        arguments: List[str] = []
        if config:
            arguments += ["-F", config]
        if self.user:
            arguments += ["-l", self.user]
        if self.port:
            arguments += ["-p", str(self.port)]
        return arguments + ["-T", "--", self.host] + remote_command + ["dial-stdio"]


def remote_command_words(text: str) -> List[str]:
    """The remote command's words, each checked to hold nothing the remote shell reads
    specially (ssh hands the command to it as one line)."""
    words = text.split()
    if not words:
        raise ValueError("the remote command is empty")
    for word in words:
        if not _WORD.fullmatch(word):
            raise ValueError(
                "the remote command's words may hold only letters, digits and / . _ + = : , @ % - "
                f'(the remote shell reads the line), not "{word}"'
            )
    return words


@dataclass(frozen=True)
class Endpoint:
    """A remote daemon: where, what runs there, and which ssh configuration."""

    destination: SSHDestination
    remote_command: List[str]
    ssh_config: Optional[str]

    def __str__(self) -> str:
        return str(self.destination)


def resolve_endpoint(
    path: Optional[str],
    host: Optional[str],
    remote_command: Optional[str] = None,
    ssh_config: Optional[str] = None,
    environ: Optional[Mapping[str, str]] = None,
) -> Optional[Endpoint]:
    """The remote endpoint chosen by the rule every client shares: an explicit ``host``; else
    none when an explicit ``path`` is given; else ``$ACCESSORYD_HOST`` when not empty; else none
    (the local socket lookup applies)."""
    env = os.environ if environ is None else environ
    url = host if host is not None else (None if path is not None else env.get(HOST_VARIABLE) or None)
    if url is None:
        return None
    command = remote_command if remote_command is not None else env.get(REMOTE_COMMAND_VARIABLE) or DEFAULT_REMOTE_COMMAND
    config = ssh_config if ssh_config is not None else env.get(SSH_CONFIG_VARIABLE) or None
    return Endpoint(SSHDestination.parse(url), remote_command_words(command), config)


class Tunnel:
    """The ``ssh`` child behind one remote connection.

    :attr:`sock` is the client's end of a socket pair whose other end is ssh's standard input
    and output, used as the daemon's socket would be. A thread keeps the end of ssh's standard
    error and reaps ssh; :meth:`reason` says, once ssh has exited, why the connection ended in
    ssh's own words. After :meth:`release`, ssh has ``GRACE_SECONDS`` to exit by itself, then
    gets SIGTERM, then SIGKILL: nothing waits forever on a host that stopped answering.
    """

    def __init__(self, endpoint: Endpoint, program: str = "ssh") -> None:
        self.endpoint = endpoint
        found = shutil.which(program)
        if found is None:
            from .errors import ConnectFailed

            raise ConnectFailed(f"cannot connect to accessoryd at {endpoint}: {program} not found on PATH (install the OpenSSH client)")
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            self.process: "subprocess.Popen[bytes]" = subprocess.Popen(
                [found] + endpoint.destination.ssh_arguments(endpoint.remote_command, endpoint.ssh_config),
                stdin=theirs.fileno(),
                stdout=theirs.fileno(),
                stderr=subprocess.PIPE,
                close_fds=True,
            )
        except OSError as error:
            ours.close()
            from .errors import ConnectFailed

            raise ConnectFailed(f"cannot connect to accessoryd at {endpoint}: cannot start {found}: {error}") from None
        finally:
            theirs.close()
        self.sock = ours
        self._stderr: Deque[bytes] = deque(maxlen=64)
        self._exited = threading.Event()
        self._released = threading.Event()
        threading.Thread(target=self._watch, name=f"accessoryd-ssh {endpoint}", daemon=True).start()

    def _watch(self) -> None:
        stream = self.process.stderr
        assert stream is not None
        try:
            for line in iter(stream.readline, b""):
                self._stderr.append(line)
        finally:
            stream.close()
            self.process.wait()
            self._exited.set()

    def release(self) -> None:
        """The client is done with the connection: ssh gets its grace period, then signals."""
        if self._released.is_set():
            return
        self._released.set()

        def enforce() -> None:
            for signal_it in (self.process.terminate, self.process.kill):
                if self._exited.wait(GRACE_SECONDS):
                    return
                try:
                    signal_it()
                except OSError:
                    return

        threading.Thread(target=enforce, name=f"accessoryd-ssh-release {self.endpoint}", daemon=True).start()

    def reason(self) -> str:
        """Why the connection ended, once ssh has exited (released first, so this is bounded)."""
        self.release()
        self._exited.wait(3 * GRACE_SECONDS + 1)
        lines = [line.decode("utf-8", "replace").strip() for line in self._stderr]
        message = "; ".join(line for line in lines if line)[-1000:]
        status = self.process.returncode
        host = str(self.endpoint)
        if status in (3, 4):  # dial-stdio's own: the remote daemon is not running, or refused us
            return f"{host}: " + (message[len("error: ") :] if message.startswith("error: ") else message)
        if status == 0 and not message:
            return f"the connection to accessoryd on {host} was lost: the remote accessoryd closed it"
        if not message:
            message = f"ssh exited with status {status}" if status is not None and status >= 0 else "ssh was killed by a signal"
        return f"the connection to accessoryd on {host} was lost: {message}"
