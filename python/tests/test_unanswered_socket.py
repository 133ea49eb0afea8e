"""A socket that takes connections while no daemon serves them (a systemd socket unit whose
daemon fails to start): the client says so within seconds instead of waiting forever; a daemon
that is alive but slow to answer one request is waited for."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path
from typing import List

import pytest

from accessoryd import Client, ConnectionLost


def test_a_socket_nobody_accepts_on_is_reported_within_10_seconds(tmp_path: Path) -> None:
    path = str(tmp_path / "accessoryd.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(8)  # never accepted: the connection waits in the queue, as under a socket unit
    try:
        client = Client(path)
        started = time.monotonic()
        with pytest.raises(ConnectionLost, match=f"no daemon answers on {path}: it accepts connections"):
            client.submit("devices.list").result(timeout=15)  # bounded: a TimeoutError would fail
        assert time.monotonic() - started < 10
        client.close()
    finally:
        listener.close()


def test_a_daemon_slow_to_answer_one_request_is_waited_for(tmp_path: Path) -> None:
    """daemon.status (the probe) is answered at once; devices.list after 8 s."""
    path = str(tmp_path / "accessoryd.sock")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(8)
    listener.settimeout(30)
    served: List[socket.socket] = []

    def answer(conn: socket.socket) -> None:
        rest = b""
        while True:
            chunk = conn.recv(4096)
            if not chunk:
                return
            lines = (rest + chunk).split(b"\n")
            rest = lines.pop()
            for line in lines:
                request = json.loads(line)
                if request["method"] == "devices.list":
                    time.sleep(8)  # the fake daemon's own slowness, not the test's ordering
                    result = {"devices": []}
                else:
                    result = {"version": "0.0.0"}
                conn.sendall(json.dumps({"jsonrpc": "2.0", "id": request["id"], "result": result}).encode() + b"\n")

    def serve() -> None:
        for _ in range(2):  # the client's connection, then the probe's
            try:
                conn, _ = listener.accept()
            except OSError:
                return
            served.append(conn)
            threading.Thread(target=answer, args=(conn,), daemon=True).start()

    threading.Thread(target=serve, daemon=True).start()
    try:
        with Client(path) as client:
            assert client.submit("devices.list").result(timeout=20) == {"devices": []}
        assert len(served) == 2, "the client did not probe the silent daemon"
    finally:
        listener.close()
        for conn in served:
            conn.close()
