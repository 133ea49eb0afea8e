"""Fixtures of the RFC 2217 tools tests: a per-test watchdog (as python/tests)."""

from __future__ import annotations

import faulthandler
import os
import sys
from pathlib import Path
from typing import Iterator

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the client package, uninstalled
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))  # its tests' harness
sys.path.insert(0, str(Path(__file__).resolve().parent))

WATCHDOG_SECONDS = float(os.environ.get("ACCESSORYD_PYTEST_WATCHDOG", "240"))


@pytest.fixture(autouse=True)
def watchdog() -> Iterator[None]:
    faulthandler.dump_traceback_later(WATCHDOG_SECONDS, exit=True)
    yield
    faulthandler.cancel_dump_traceback_later()
