"""The recipes of docs/python.md, run as the scripts they are against the real daemon."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import List

from harness import GPS, MODEM, Daemon, echo, products, simulated
from schema_check import Recorder

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def run_example(name: str, *arguments: str, seconds: float = 60) -> subprocess.CompletedProcess[str]:
    environment = dict(os.environ, PYTHONPATH=str(EXAMPLES.parent))
    return subprocess.run(
        [sys.executable, str(EXAMPLES / name), *arguments],
        capture_output=True,
        text=True,
        timeout=seconds,
        env=environment,
    )


def test_gps_while_modem(recorder: Recorder) -> None:
    running = Daemon([MODEM, GPS], recorder)
    try:
        done = run_example("gps_while_modem.py", "--socket", running.socket, "--sentences", "6")
    finally:
        running.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert len([line for line in lines if re.match(r"gps +\$GP[A-Z]{3},", line)]) == 6, lines
    assert any(line.startswith("modem  ATI -> Manufacturer:") and line.endswith("| OK") for line in lines), lines
    assert any(line == "modem  AT -> OK" for line in lines), lines


def test_lab_queries_ten_instruments_in_parallel(recorder: Recorder) -> None:
    names = [f"inst{i}" for i in range(10)]
    running = Daemon([echo(name, delay_ms=200) for name in names], recorder)
    try:
        done = run_example("lab_parallel.py", "--socket", running.socket)
        served = {name: int(running.client().status(name).counters["requests_ok"]) for name in names}
    finally:
        running.stop()
    assert done.returncode == 0, done.stdout + done.stderr
    rows = [line.split() for line in done.stdout.splitlines()[:-1]]
    assert sorted(row[0] for row in rows) == names
    assert all(row[-1] == "*IDN?" for row in rows), rows
    assert done.stdout.splitlines()[-1].startswith("10 instruments in ")
    assert served == {name: 1 for name in names}


def _direct_modem(folder: str) -> "subprocess.Popen[str]":
    """accessory-sim's AT modem on a pty of its own (what pyserial opens before accessoryd)."""
    sim = subprocess.Popen(
        [str(products() / "accessory-sim"), "--personality", "at-modem", "--link", f"{folder}/modem"],
        stdout=subprocess.PIPE,
        text=True,
    )
    assert sim.stdout is not None and sim.stdout.readline().startswith("READY ")
    return sim


def test_pyserial_script_before_and_after(recorder: Recorder) -> None:
    with tempfile.TemporaryDirectory(prefix="adpy-") as folder:
        sim = _direct_modem(folder)
        try:
            before = run_example("pyserial_before.py", f"{folder}/modem", seconds=20)
        finally:
            sim.terminate()
            sim.wait(10)
    assert before.returncode == 0, before.stderr
    running = Daemon(
        [simulated("modem", "at-modem", '{type: line, delimiter: "\\r\\n", terminator: "\\r\\n"}', "response: {until: \'^(OK|ERROR)$\'}")],
        recorder,
    )
    try:
        after: List[subprocess.CompletedProcess[str]] = [
            run_example(script, "modem", "--socket", running.socket, seconds=20)
            for script in ("pyserial_after.py", "pyserial_transact.py")
        ]
    finally:
        running.stop()
    assert before.stdout.startswith("AT -> OK\nATI -> Manufacturer: AccessorySim")
    for outcome in after:
        assert outcome.returncode == 0, outcome.stderr
        assert outcome.stdout == before.stdout
