"""esptool (PyPI, pinned) against the `esp32-rom` personality of accessory-sim over RFC 2217,
and the reset gate that makes the personality enter its ROM loader only after esptool's DTR/RTS
sequence has reached it (through the daemon's pty stand-in for modem lines)."""

from __future__ import annotations

import struct

import accessoryd
import pytest
from harness import Daemon, simulated
from schema_check import Recorder
from tools import Ser2net, Simulator, esptool, field, free_port

#: The simulated chip's identity (Sources/AccessorySimulator/ESP32Registers.swift).
MAC = "24:0a:c4:5a:17:e2"
CHIP = "ESP32-D0WD-V3 (revision v3.0)"

#: The ROM loader's SYNC command: direction 0, command 8, 36 bytes of data, checksum 0.
SYNC = struct.pack("<BBHI", 0, 8, 36, 0) + b"\x07\x07\x12\x20" + b"\x55" * 32

#: esptool's classic bootloader reset as `control` steps (one line changed at a time, as its
#: RFC 2217 client does): EN low, then GPIO0 low as EN is released, then GPIO0 released. GPIO0
#: is held for 550 ms, esptool's second attempt (its first holds 50 ms): the chip starts 25 ms
#: after EN's release, and a loaded machine may run the simulator late.
CLASSIC_RESET = [
    {"dtr": False, "rts": True, "ms": 100},
    {"dtr": True, "ms": 0},
    {"rts": False, "ms": 550},
    {"dtr": False, "ms": 0},
]

#: A plain reset (esptool's hard reset): EN pulsed with GPIO0 left high, then the same time to
#: start before anything is sent (a chip in reset hears nothing).
HARD_RESET = [{"dtr": False, "rts": True, "ms": 100}, {"rts": False, "ms": 550}]


def test_esptool_chip_id_through_ser2net_rfc2217() -> None:
    """The whole esptool session (sync, chip detection, eFuse reads, stub upload, MAC) through
    ser2net's RFC 2217 accepter. ser2net cannot move a pty's modem lines and does not answer
    SET-CONTROL then, so the chip is strapped for download (`--boot download`), esptool skips its
    reset (`--before no-reset`) and its RFC 2217 client does not wait for those answers
    (`?ign_set_control`)."""
    sim = Simulator("esp32-rom", "--boot", "download")
    try:
        ser2net = Ser2net(sim.pty, rfc2217=True, folder=sim.folder)
        try:
            run = esptool(f"rfc2217://127.0.0.1:{ser2net.port}?ign_set_control", "--before", "no-reset", "chip-id")
        finally:
            ser2net.stop()
    finally:
        sim.stop()
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    assert field(output, "Chip type") == CHIP, output
    assert field(output, "Crystal frequency") == "40MHz", output
    assert "Stub flasher running." in output, output
    assert field(output, "MAC") == MAC, output


def test_esptool_read_mac_without_stub_through_ser2net_raw_tcp() -> None:
    """The ROM loader alone (`--no-stub`) over ser2net's raw TCP accepter (`socket://`)."""
    sim = Simulator("esp32-rom", "--boot", "download")
    try:
        ser2net = Ser2net(sim.pty, rfc2217=False, folder=sim.folder)
        try:
            run = esptool(f"socket://127.0.0.1:{ser2net.port}", "--no-stub", "read-mac")
        finally:
            ser2net.stop()
    finally:
        sim.stop()
    output = run.stdout + run.stderr
    assert run.returncode == 0, output
    assert "Stub flasher" not in output, output
    assert field(output, "MAC") == MAC, output


@pytest.fixture()
def esp_daemon() -> Daemon:
    """accessoryd with one `simulate: {personality: esp32-rom}` accessory (strapped to boot its
    application), SLIP-framed."""
    running = Daemon([simulated("esp", "esp32-rom", "{type: slip, max_frame_bytes: 4096}")], Recorder())
    yield running  # type: ignore[misc]
    assert running.stop() == 0, running.log()


def test_daemon_lines_reach_the_simulator_and_gate_the_loader(esp_daemon: Daemon) -> None:
    """The application ignores SYNC; the daemon's `control` with esptool's classic reset reaches
    the simulator through the pty stand-in (a pty has no modem lines), and the chip restarts in
    its ROM loader: it prints the download boot line and answers SYNC. A plain reset (GPIO0 high)
    restarts it in its application, which ignores SYNC again."""
    with esp_daemon.client() as client:
        with pytest.raises(accessoryd.TimedOut):
            client.transact("esp", SYNC, timeout=0.5)
        result = client.call("control", {"device": "esp", "sequence": CLASSIC_RESET})
        assert result["lines"]["dtr"] is False and result["lines"]["rts"] is False, result
        boot = client.transact("esp", SYNC, timeout=2)
        assert boot[0].data.endswith(b"waiting for download\r\n"), boot
        # The SYNC's first answer: direction 1, command 8, four status bytes, all well.
        answer = client.transact("esp", SYNC, timeout=2)
        assert answer[0].data[:4] == b"\x01\x08\x04\x00" and answer[0].data[8:] == b"\x00\x00\x00\x00", answer

        # Its boot line (no SLIP END follows it) stays in the daemon's framer: only the silence
        # of the application is seen.
        client.call("control", {"device": "esp", "sequence": HARD_RESET})
        with pytest.raises(accessoryd.TimedOut):
            client.transact("esp", SYNC, timeout=0.5)


def test_esptool_resets_the_chip_through_accessoryd_rfc2217() -> None:
    """The whole esptool session through accessoryd's own RFC 2217 listener, reset included:
    the chip is strapped to run its application, so only esptool's DTR/RTS sequence, carried by
    SET-CONTROL to the daemon and by the pty stand-in to the simulator, gets it into the ROM
    loader. esptool resets it into its application at the end (`--after hard-reset`)."""
    port = free_port()
    network = f'network: [{{listen: "127.0.0.1:{port}", protocol: rfc2217, settings: follow}}]'
    daemon = Daemon([simulated("esp", "esp32-rom", "{type: slip, max_frame_bytes: 4096}", network)], Recorder())
    try:
        run = esptool(f"rfc2217://127.0.0.1:{port}", "chip-id")
        output = run.stdout + run.stderr
        assert run.returncode == 0, output + daemon.log()
        assert "Connecting..." in output and field(output, "Chip type") == CHIP, output
        assert "Stub flasher running." in output, output
        assert field(output, "MAC") == MAC, output
        assert "Hard resetting via RTS pin..." in output, output
        # After esptool's hard reset the application runs again: SYNC goes unanswered.
        with daemon.client() as client:
            with pytest.raises(accessoryd.TimedOut):
                client.transact("esp", SYNC, timeout=0.5)
    finally:
        assert daemon.stop() == 0, daemon.log()
