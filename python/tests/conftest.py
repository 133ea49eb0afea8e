"""Fixtures: the real daemon on simulated accessories, clients whose traffic is checked
against the OpenRPC document, and a per-test watchdog."""

from __future__ import annotations

import faulthandler
import os
import sys
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the package, uninstalled
sys.path.insert(0, str(Path(__file__).resolve().parent))

from harness import GPS, MODEM, SLIP, Daemon, echo, simulated  # noqa: E402
from schema_check import Recorder  # noqa: E402

#: A test still running after this long has hung: the stacks are printed and the run ends
#: (pytest-timeout may not be installed; faulthandler is in the standard library).
WATCHDOG_SECONDS = float(os.environ.get("ACCESSORYD_PYTEST_WATCHDOG", "120"))


@pytest.fixture(autouse=True)
def watchdog() -> Iterator[None]:
    faulthandler.dump_traceback_later(WATCHDOG_SECONDS, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()


@pytest.fixture(scope="session")
def recorder() -> Recorder:
    return Recorder()


@pytest.fixture(autouse=True)
def traffic_matches_document(recorder: Recorder) -> Iterator[None]:
    """Every message a test's clients exchanged matches docs/accessoryd.openrpc.json."""
    recorder.take_failures()
    yield
    failures = recorder.take_failures()
    assert not failures, "traffic that breaks the OpenRPC document:\n" + "\n".join(failures)


#: The shared daemon's accessories.
STANDARD = [
    echo("echo"),
    echo("slow", delay_ms=1500),
    echo("lag", delay_ms=100),
    MODEM,
    GPS,
    SLIP,
    simulated("tiny", "echo", '{type: line, delimiter: "\\n", max_frame_bytes: 16}'),
    simulated("off", "echo", '{type: line, delimiter: "\\n"}', "enabled: false"),
]


@pytest.fixture(scope="session")
def daemon(recorder: Recorder) -> Iterator[Daemon]:
    """One daemon for the tests that leave it as they found it."""
    running = Daemon(STANDARD, recorder, ready=["echo", "slow", "lag", "modem", "gps", "slip", "tiny"])
    yield running
    status = running.stop()
    assert status == 0, f"accessoryd exited with {status} after SIGTERM:\n{running.log()}"
