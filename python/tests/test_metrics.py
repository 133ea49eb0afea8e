"""`accessoryctl metrics`: Prometheus' text format, read back with Prometheus' own Python parser
(Debian's python3-prometheus-client), with values that match device.status; and the shipped
systemd unit's command, run as systemd would run it."""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from pathlib import Path
from typing import Dict, List, Tuple

from prometheus_client.parser import text_string_to_metric_families

from harness import REPO, Daemon, products

Samples = Dict[Tuple[str, Tuple[Tuple[str, str], ...]], float]


def metrics_text(daemon: Daemon) -> str:
    result = subprocess.run(
        [str(products() / "accessoryctl"), "--socket", daemon.socket, "metrics"],
        capture_output=True,
        text=True,
        timeout=30,
    )
    assert result.returncode == 0, result.stderr
    return result.stdout


def parse(text: str) -> Tuple[Dict[str, str], Samples]:
    """Family types by name, and every sample by (name, sorted labels). The parser raises on
    anything the format does not allow."""
    types: Dict[str, str] = {}
    samples: Samples = {}
    for family in text_string_to_metric_families(text):
        types[family.name] = family.type
        for sample in family.samples:
            key = (sample.name, tuple(sorted(sample.labels.items())))
            assert key not in samples, f"a sample twice: {key}"
            samples[key] = sample.value
    return types, samples


def test_metrics_parse_strictly_and_match_device_status(daemon: Daemon) -> None:
    with daemon.client() as client:
        for text in ("one", "two", "three"):
            client.transact("echo", text)
        text = metrics_text(daemon)
        status = client.call("device.status", {"device": "echo"})
        overall = client.call("daemon.status")
    types, samples = parse(text)
    # Every family has its HELP and TYPE, before its samples.
    declared = re.findall(r"^# TYPE (\S+) (\S+)$", text, re.M)
    helped = re.findall(r"^# HELP (\S+) ", text, re.M)
    assert [name for name, _ in declared] == helped
    echo = (("accessory", "echo"),)

    counters = status["counters"]
    for name, value in counters.items():
        if name.startswith("latency_"):
            continue
        assert types[f"accessoryd_accessory_{name}"] == "counter"
        assert samples[(f"accessoryd_accessory_{name}_total", echo)] == value, name
    assert counters["requests_ok"] >= 3
    for key, quantile in (("latency_p50_ms", "0.5"), ("latency_p99_ms", "0.99")):
        got = samples[("accessoryd_accessory_request_latency_seconds", (("accessory", "echo"), ("quantile", quantile)))]
        assert abs(got - counters[key] / 1000) < 1e-9
    assert types["accessoryd_accessory_request_latency_seconds"] == "summary"
    # The state: one gauge per state, 1 for the current one only.
    states = {
        dict(labels)["state"]: value
        for (name, labels), value in samples.items()
        if name == "accessoryd_accessory_state" and dict(labels)["accessory"] == "echo"
    }
    assert states[status["state"]] == 1 and sum(states.values()) == 1, states
    assert {"absent", "opening", "ready", "failed", "disabled"} <= set(states)
    assert samples[("accessoryd_accessory_state", (("accessory", "off"), ("state", "disabled")))] == 1
    assert samples[("accessoryd_accessory_queue_depth", echo)] == status["queue_depth"]
    assert samples[("accessoryd_accessory_locked", echo)] == (1 if status["locked"] else 0)
    # The daemon's own, counters with _total.
    assert types["accessoryd_clients_accepted"] == "counter"
    assert samples[("accessoryd_clients_accepted_total", ())] <= overall["clients_accepted"]
    assert samples[("accessoryd_accessories", ())] == overall["accessories"]
    assert samples[("accessoryd_info", (("version", overall["version"]),))] == 1


def shipped_metrics_command(folder: str) -> list[str]:
    """The metrics service's ExecStart as systemd runs it: the template's @BINDIR@ is the built
    programs' folder here, ${STATE_DIRECTORY} the service's folder."""
    unit = (REPO / "systemd" / "accessoryd-metrics.service.in").read_text()
    command = re.search(r"^ExecStart=(.*)$", unit, re.M)
    assert command, "the metrics service has no ExecStart"
    line = command.group(1).replace("@BINDIR@", str(products())).replace("${STATE_DIRECTORY}", folder)
    assert "$" not in line and "@" not in line, line
    return line.split()


def test_the_shipped_timer_service_writes_the_file_atomically(daemon: Daemon) -> None:
    timer = (REPO / "systemd" / "accessoryd-metrics.timer").read_text()
    assert re.search(r"^OnUnitActiveSec=15s$", timer, re.M)
    with tempfile.TemporaryDirectory(prefix="adprom-") as folder:
        command = shipped_metrics_command(folder)
        environment = dict(os.environ, ACCESSORYD_SOCKET=daemon.socket)
        for _ in range(2):  # the second run replaces the first file
            subprocess.run(command, env=environment, check=True, timeout=30)
            assert os.listdir(folder) == ["accessoryd.prom"]
        written = Path(folder, "accessoryd.prom")
        assert oct(written.stat().st_mode & 0o777) == "0o644"
        _, samples = parse(written.read_text())
        assert ("accessoryd_accessory_requests_ok_total", (("accessory", "echo"),)) in samples
        # A failing command (no daemon) leaves the previous file and no temporary one.
        environment["ACCESSORYD_SOCKET"] = folder + "/none.sock"
        before = written.read_text()
        failed = subprocess.run(command, env=environment, timeout=30, capture_output=True)
        assert failed.returncode != 0
        assert os.listdir(folder) == ["accessoryd.prom"] and written.read_text() == before


def test_the_metrics_file_is_never_written_through_a_planted_name(daemon: Daemon) -> None:
    """A name another user put where the file goes (a symbolic link to a file only root may
    write) is replaced, never followed; a folder others may write is refused before anything is
    written."""
    with tempfile.TemporaryDirectory(prefix="adprom-") as folder:
        victim = Path(folder, "victim")
        victim.write_text("root's secret\n")
        victim.chmod(0o600)
        final = Path(folder, "accessoryd.prom")
        final.symlink_to(victim)
        environment = dict(os.environ, ACCESSORYD_SOCKET=daemon.socket)
        subprocess.run(shipped_metrics_command(folder), env=environment, check=True, timeout=30)
        assert victim.read_text() == "root's secret\n" and oct(victim.stat().st_mode & 0o777) == "0o600"
        assert not final.is_symlink() and "accessoryd_info" in final.read_text()
        # Everyone may write the folder (and it is not sticky): refused, nothing written.
        os.chmod(folder, 0o777)
        final.unlink()
        refused = subprocess.run(
            shipped_metrics_command(folder), env=environment, timeout=30, capture_output=True, text=True
        )
        assert refused.returncode == 1, refused
        assert f"not writing {final}: unsafe directory {folder}" in refused.stderr, refused.stderr
        assert sorted(os.listdir(folder)) == ["victim"]
