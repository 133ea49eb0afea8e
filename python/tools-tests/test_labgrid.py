"""labgrid (PyPI, pinned) on a farm of its own: a coordinator, an exporter started `--isolated`
with a `NetworkSerialPort`, the throwaway sshd its clients must reach the port through, and a
client that acquires the place and, through labgrid's `SerialDriver`, sends `AT` to the
simulated modem and reads `OK`."""

from __future__ import annotations

import os
import threading
from pathlib import Path
from typing import Dict, List, Optional

import accessoryd
from harness import Daemon, simulated, wait_until
from labfarm import Farm
from schema_check import Recorder
from tools import Ser2net, Simulator, free_port

SESSION = str(Path(__file__).resolve().parent / "labgrid_session.py")
PLACE = "modem"


def acquire(farm: Farm) -> None:
    farm.checked_client("create", place=PLACE)
    farm.checked_client("add-match", f"{farm.exporter_name}/{farm.group}/NetworkSerialPort", place=PLACE)
    farm.checked_client("acquire", place=PLACE)


def proxied_logins(farm: Farm) -> int:
    """How many SSH logins the farm's sshd accepted (the isolated exporter's port forwards)."""
    return farm.sshd.log_path.read_text(errors="replace").count("Accepted publickey")


def test_labgrid_serial_driver_through_ser2net() -> None:
    """The farm against the peer: ser2net's `telnet(rfc2217)` accepter on the modem's pty."""
    sim = Simulator("at-modem")
    try:
        ser2net = Ser2net(sim.pty, rfc2217=True, folder=sim.folder)
        farm: Optional[Farm] = None
        try:
            farm = Farm(sim.folder, ser2net.port, "rfc2217")
            acquire(farm)
            session = farm.python(SESSION, PLACE)
            assert session.stdout is not None and session.stdin is not None
            assert session.stdout.readline().strip() == "OPEN", farm.logs()
            assert session.stdout.readline().strip() == "ANSWER OK", farm.logs()
            session.stdin.write("\n")
            session.stdin.flush()
            assert session.stdout.readline().strip() == "CLOSED"
            assert session.wait(30) == 0
            assert proxied_logins(farm) >= 1, "the isolated exporter's port was reached without the SSH proxy"
            farm.checked_client("release", place=PLACE)
        finally:
            if farm is not None:
                farm.stop()
            ser2net.stop()
    finally:
        sim.stop()


def test_labgrid_session_holds_the_accessory_until_released() -> None:
    """Through accessoryd's own RFC 2217 listener: while labgrid's session is open it holds the
    modem, so another client's `transact` waits; closing the session serves it."""
    port = free_port()
    network = f'network: [{{listen: "127.0.0.1:{port}", protocol: rfc2217, settings: follow}}]'
    modem = simulated(
        "modem",
        "at-modem",
        '{type: line, delimiter: "\\r\\n", terminator: "\\r\\n"}',
        "response: {until: '^(OK|ERROR)$', timeout_ms: 2000}, " + network,
    )
    daemon = Daemon([modem], Recorder())
    farm: Optional[Farm] = None
    try:
        farm = Farm(daemon.folder, port, "rfc2217")
        acquire(farm)
        session = farm.python(SESSION, PLACE)
        assert session.stdout is not None and session.stdin is not None
        assert session.stdout.readline().strip() == "OPEN", farm.logs() + daemon.log()
        assert session.stdout.readline().strip() == "ANSWER OK", farm.logs() + daemon.log()

        answers: List[object] = []

        def transact() -> None:
            with daemon.client() as client:
                try:
                    answers.append(client.transact("modem", "AT", timeout=5, wait=60))
                except accessoryd.AccessorydError as error:
                    answers.append(error)

        with daemon.client() as client:
            assert client.call("device.status", {"device": "modem"})["locked"] is True, "the session holds the lease"

            def clients() -> Dict[int, int]:
                listed = client.call("clients.list")["clients"]
                return {int(c["id"]): int(c["requests_in_flight"]) for c in listed}

            before = set(clients())
            waiter = threading.Thread(target=transact)
            waiter.start()
            wait_until(
                lambda: any(n >= 1 for i, n in clients().items() if i not in before) or bool(answers),
                10,
                "the transact to wait behind the session",
            )
        # The session still holds the accessory: the transact is queued, unanswered.
        assert answers == [], answers
        session.stdin.write("\n")
        session.stdin.flush()
        assert session.stdout.readline().strip() == "CLOSED"
        assert session.wait(30) == 0
        waiter.join(30)
        assert not waiter.is_alive()
        assert len(answers) == 1 and not isinstance(answers[0], Exception), answers
        assert [f.data for f in answers[0]][-1] == b"OK", answers  # type: ignore[attr-defined]
        assert proxied_logins(farm) >= 1, "the isolated exporter's port was reached without the SSH proxy"
        # The connection the listener saw came from the SSH user's forward (this test logs in as
        # itself): its uid, found through sock_diag, is that user's.
        assert f"uid {os.getuid()}): connected" in daemon.log(), daemon.log()
        farm.checked_client("release", place=PLACE)
    finally:
        if farm is not None:
            farm.stop()
        assert daemon.stop() == 0, daemon.log()
