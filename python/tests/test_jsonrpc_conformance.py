"""JSON-RPC 2.0 as its specification says, driven by a generic client library nobody here wrote
(Debian's python3-tinyrpc: its JSONRPCProtocol builds every request, notification and batch and
parses every reply, strictly), over a newline-delimited transport on the daemon's socket.

tinyrpc ships no Unix-socket transport, so the one below is the only code of ours on the path:
it writes a message and a newline, and reads one line back when a reply is expected."""

from __future__ import annotations

import json
import socket
from typing import Any, Dict, List, Optional

from tinyrpc import RPCClient
from tinyrpc.protocols.jsonrpc import JSONRPCProtocol
from tinyrpc.transports import ClientTransport

from harness import REPO, Daemon

DOCUMENT = REPO / "docs" / "accessoryd.openrpc.json"


class UnixLineTransport(ClientTransport):  # type: ignore[misc]
    """One message per line on a Unix stream socket (the daemon's framing)."""

    def __init__(self, path: str, timeout: float = 10) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(timeout)
        self.sock.connect(path)
        self.pending = b""

    def send_message(self, message: bytes, expect_reply: bool = True) -> Optional[bytes]:
        if isinstance(message, str):
            message = message.encode()
        self.sock.sendall(message + b"\n")
        return self.read_line() if expect_reply else None

    def read_line(self) -> bytes:
        while b"\n" not in self.pending:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the daemon closed the connection")
            self.pending += chunk
        line, _, self.pending = self.pending.partition(b"\n")
        return line

    def reply_line(self) -> bytes:
        """The next line that is not a notification from the daemon (device.data, …)."""
        while True:
            line = self.read_line()
            if "id" in json.loads(line) or line.startswith(b"["):
                return line

    def close(self) -> None:
        self.sock.close()


def connect(daemon: Daemon) -> tuple[JSONRPCProtocol, UnixLineTransport, RPCClient]:
    protocol = JSONRPCProtocol()
    transport = UnixLineTransport(daemon.socket)
    return protocol, transport, RPCClient(protocol, transport)


def test_a_request_through_the_generic_client(daemon: Daemon) -> None:
    protocol, transport, client = connect(daemon)
    try:
        result = client.call("transact", None, {"device": "echo", "data": "hello"})
        assert [frame["data"] for frame in result["frames"]] == ["hello"]
        names = [device["name"] for device in client.call("devices.list", None, None)["devices"]]
        assert "echo" in names
    finally:
        transport.close()


def test_rpc_discover_serves_the_openrpc_document_of_the_repository(daemon: Daemon) -> None:
    protocol, transport, client = connect(daemon)
    try:
        served = client.call("rpc.discover", None, None)
        assert served == json.loads(DOCUMENT.read_text())
    finally:
        transport.close()


def test_a_notification_is_executed_and_never_answered(daemon: Daemon) -> None:
    protocol, transport, client = connect(daemon)
    try:
        client.call("subscribe", None, {"device": "echo", "events": ["data"]})
        # A fire-and-forget write: the echo comes back as device.data (no request claims it).
        note = protocol.create_request("write", kwargs={"device": "echo", "data": "fire-and-forget\n"}, one_way=True)
        assert "id" not in json.loads(note.serialize())
        transport.send_message(note.serialize(), expect_reply=False)
        # An unknown method and wrong params as notifications: no answer either (nobody to tell).
        for bad in (
            protocol.create_request("no.such.method", kwargs={"x": 1}, one_way=True),
            protocol.create_request("write", kwargs={"device": "echo"}, one_way=True),
        ):
            transport.send_message(bad.serialize(), expect_reply=False)
        # The next line with an id answers the next request: nothing was sent for the notifications.
        marker = protocol.create_request("devices.list")
        transport.send_message(marker.serialize(), expect_reply=False)
        seen: List[Dict[str, Any]] = []
        while True:
            message = json.loads(transport.read_line())
            seen.append(message)
            if "id" in message:
                break
        assert protocol.parse_reply(json.dumps(seen[-1])).unique_id == marker.unique_id, seen
        echoed = [m["params"].get("data") for m in seen if m.get("method") == "device.data"]
        if "fire-and-forget" not in echoed:
            # The echo may come after the devices.list reply: wait for it (bounded by the socket timeout).
            while True:
                message = json.loads(transport.read_line())
                assert "id" not in message, f"an answer to a notification: {message}"
                if message.get("method") == "device.data":
                    echoed.append(message["params"].get("data"))
                    break
        assert "fire-and-forget" in echoed
    finally:
        transport.close()


def test_a_batch_is_answered_by_an_array_in_request_order(daemon: Daemon) -> None:
    protocol, transport, _ = connect(daemon)
    try:
        batch = protocol.create_batch_request()
        batch.append(protocol.create_request("transact", kwargs={"device": "lag", "data": "slow one"}))
        batch.append(protocol.create_request("transact", kwargs={"device": "echo", "data": "quick one"}))
        batch.append(protocol.create_request("write", kwargs={"device": "echo", "data": "x\n"}, one_way=True))
        batch.append(protocol.create_request("no.such.method"))
        batch.append(protocol.create_request("device.status", kwargs={"device": "nope"}))
        batch.append(protocol.create_request("rpc.discover"))
        ids = [request.unique_id for request in batch if request.unique_id is not None]
        reply = json.loads(transport.send_message(batch.serialize().encode()) or b"")
        assert isinstance(reply, list), reply
        responses = [protocol.parse_reply(json.dumps(element)) for element in reply]
        assert [response.unique_id for response in responses] == ids
        assert [frame["data"] for frame in responses[0].result["frames"]] == ["slow one"]
        assert [frame["data"] for frame in responses[1].result["frames"]] == ["quick one"]
        assert responses[2]._jsonrpc_error_code == -32601
        assert responses[3]._jsonrpc_error_code == 1001
        assert responses[4].result == json.loads(DOCUMENT.read_text())
    finally:
        transport.close()


def test_a_batch_of_notifications_gets_no_reply_and_an_empty_batch_is_an_invalid_request(daemon: Daemon) -> None:
    protocol, transport, client = connect(daemon)
    try:
        batch = protocol.create_batch_request()
        for text in ("one\n", "two\n"):
            batch.append(protocol.create_request("write", kwargs={"device": "echo", "data": text}, one_way=True))
        transport.send_message(batch.serialize().encode(), expect_reply=False)
        transport.send_message(b"[]", expect_reply=False)
        empty = json.loads(transport.reply_line())
        assert empty["id"] is None and empty["error"]["code"] == -32600, empty
        # Nothing else was owed: the next reply is the next request's.
        assert client.call("daemon.status", None, None)["version"]
    finally:
        transport.close()


def test_by_position_params_are_refused_with_a_clear_error(daemon: Daemon) -> None:
    protocol, transport, client = connect(daemon)
    try:
        request = protocol.create_request("device.status", args=["echo"])
        response = protocol.parse_reply(transport.send_message(request.serialize().encode()) or b"")
        assert response._jsonrpc_error_code == -32602
        assert "by-position params are not supported" in response.error
    finally:
        transport.close()
