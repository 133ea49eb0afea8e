"""docs/accessoryd.openrpc.json against the code and the running daemon."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path
from typing import List

import jsonschema

import accessoryd
from harness import REPO, Daemon
from schema_check import OpenRPC, Recorder

METHOD_SWIFT = REPO / "Sources" / "ControlProtocol" / "Method.swift"


def methods_in_code(path: Path = METHOD_SWIFT) -> List[str]:
    """The wire names in `enum MethodName` (a case's raw value, else its name)."""
    block = re.search(r"enum MethodName\b[^{]*\{(.*?)\n\}", path.read_text(), re.S)
    assert block, f"no enum MethodName in {path}"
    return [raw or name for name, raw in re.findall(r'case\s+(\w+)(?:\s*=\s*"([^"]+)")?', block.group(1))]


def test_the_document_lists_exactly_the_methods_in_the_code() -> None:
    code = set(methods_in_code())
    document = set(OpenRPC().methods)
    assert len(code) >= 12
    assert sorted(code - document) == [], "methods in Method.swift but not in docs/accessoryd.openrpc.json"
    assert sorted(document - code) == [], "methods in docs/accessoryd.openrpc.json but not in Method.swift"


def notifications_in_code(sources: Path = REPO / "Sources") -> List[str]:
    """The notification methods the daemon's code writes: a `"method":"…"` literal in an encoded
    line, or `notification(method: "…"`."""
    found = set()
    for path in sources.rglob("*.swift"):
        text = path.read_text()
        found.update(re.findall(r'\\"jsonrpc\\":\\"2\.0\\",\\"method\\":\\"([A-Za-z0-9_.]+)\\"', text))
        found.update(re.findall(r'notification\(\s*method:\s*"([A-Za-z0-9_.]+)"', text))
    return sorted(found)


def test_the_document_lists_exactly_the_notifications_in_the_code() -> None:
    code = set(notifications_in_code())
    document = set(OpenRPC().notifications)
    assert {"device.data", "device.state"} <= code
    assert sorted(code - document) == [], "notifications the daemon sends but docs/accessoryd.openrpc.json lacks"
    assert sorted(document - code) == [], "notifications in docs/accessoryd.openrpc.json the daemon never sends"


def test_every_schema_in_the_document_is_valid_json_schema() -> None:
    spec = OpenRPC()
    for name, schema in spec.document["components"]["schemas"].items():
        jsonschema.Draft7Validator.check_schema(schema)
    for method in spec.methods:
        spec.validator(spec.params_schema(method))
        spec.validator(spec.result_schema(method))
        assert spec.error_codes(method), f"{method} lists no errors"
    for name in spec.notifications:
        spec.validator(spec.notification_schema(name))


def test_the_recorder_catches_a_result_the_document_does_not_describe() -> None:
    recorder = Recorder()
    trace = recorder.tracer()
    trace("send", {"jsonrpc": "2.0", "id": 1, "method": "write", "params": {"device": "echo", "data": "x"}})
    trace("recv", {"jsonrpc": "2.0", "id": 1, "result": {"written": 1, "surprise": True}})
    trace("send", {"jsonrpc": "2.0", "id": 2, "method": "cancel", "params": {"id": 1}})
    trace("recv", {"jsonrpc": "2.0", "id": 2, "error": {"code": 1005, "message": "removed"}})
    trace("send", {"jsonrpc": "2.0", "id": 3, "method": "read", "params": {"device": "echo", "max_frames": 0}})
    trace("recv", {"jsonrpc": "2.0", "id": 3, "result": {"frames": []}})
    trace("recv", {"jsonrpc": "2.0", "method": "device.gone", "params": {}})
    failures = recorder.take_failures()
    assert len(failures) == 4, failures
    assert "surprise" in failures[0]
    assert "1005" in failures[1]
    assert "max_frames" in failures[2]
    assert "device.gone" in failures[3]


def test_a_session_covers_every_method_and_notification(daemon: Daemon) -> None:
    """Every method's result, both notifications and typical errors, as the daemon sends them,
    validate; and nothing in the document went unexercised."""
    recorder = Recorder()
    with accessoryd.Client(daemon.socket, trace=recorder.tracer()) as client:
        client.devices()
        client.status("modem")
        client.daemon_status()
        events = client.subscribe("echo")
        traffic = client.subscribe("echo", ["traffic"])
        client.write("echo", b"\x00\xff binary")
        client.write("echo", "text")
        assert events.get(timeout=5) is not None
        assert traffic.get(timeout=5) is not None
        traffic.close()
        client.transact("modem", "ATI")
        client.read("gps", timeout=5, max_frames=3)
        with client.lock("echo", timeout=1, lease=2):
            pass
        call = client.submit("transact", {"device": "slow", "data": "x"})
        client.cancel(call.id)
        events.close()
        with client.attach("echo", timeout=2) as raw:
            raw.write(b"x\n")
            raw.readline()
        # Modem lines and break: a pty takes a break (its lines it has not: device.lines cannot be
        # exercised here, see below).
        client.call("control", {"device": "echo", "break_ms": 1})
        # The administrator's methods (the tests run the daemon as their own user).
        victim = accessoryd.Client(daemon.socket)
        victim.devices()
        ids = [c["id"] for c in client.call("clients.list")["clients"]]
        client.call("client.disconnect", {"id": max(ids)})
        try:
            victim.close()
        except accessoryd.AccessorydError:
            pass
        for bad in (lambda: client.status("nonesuch"), lambda: client.transact("off", "x"), lambda: client.call("nope")):
            try:
                bad()
            except accessoryd.AccessorydError:
                pass
    # A state notification: a second connection subscribes to a device that goes away and back.
    flaky = Daemon([_flaky_echo()], recorder)
    try:
        with accessoryd.Client(flaky.socket, trace=recorder.tracer()) as client:
            states = client.subscribe(events=["state"])
            try:
                client.transact("flaky", "gone")
            except accessoryd.DeviceRemoved:
                pass
            assert states.get(timeout=10) is not None
    finally:
        flaky.stop()
    _idle_attach_ends_with_detached(recorder)
    assert recorder.take_failures() == []
    spec = recorder.spec
    missing = [m for m in spec.methods if ("result", m) not in recorder.seen]
    assert missing == [], f"no validated result for {missing}"
    # device.lines needs modem lines, which the simulators' ptys do not have (ENOTTY): its schema
    # is checked by the Swift tests' fault-seam UART (LineControlTests) instead.
    assert {n for n in spec.notifications if ("notification", n) not in recorder.seen} == {"device.lines"}
    assert ("error", "device.status", 1001) in recorder.seen
    assert ("error", "transact", 1002) in recorder.seen
    assert ("error", "transact", 1005) in recorder.seen


def _flaky_echo() -> str:
    from harness import echo

    return echo("flaky", hangup_after=0, reappear_after_ms=300)


def _idle_attach_ends_with_detached(recorder: Recorder) -> None:
    """device.detached: the last line of an attach the daemon ends because no byte went either way
    for limits.attach_idle_ms. Read on a plain socket: after the attach result the stream is raw."""
    from harness import echo

    idle = Daemon([echo("idle")], recorder, limits="{attach_idle_ms: 300}")
    try:
        trace = recorder.tracer()
        request = {"jsonrpc": "2.0", "id": 1, "method": "attach", "params": {"device": "idle"}}
        received = b""
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(10)
            s.connect(str(idle.socket))
            trace("send", request)
            s.sendall((json.dumps(request) + "\n").encode())
            for _ in range(1000):  # until the daemon closes (bounded: each recv waits at most 10 s)
                chunk = s.recv(4096)
                if not chunk:
                    break
                received += chunk
        lines = [line for line in received.split(b"\n") if line.strip()]
        assert len(lines) >= 2, f"expected the attach result and device.detached, got {received!r}"
        trace("receive", json.loads(lines[0]))
        trace("receive", json.loads(lines[-1]))
    finally:
        idle.stop()
