"""Runs the real accessoryd (and, through `simulate:`, accessory-sim) for the tests: a
temporary folder, a YAML configuration, the daemon on a socket in that folder, stopped by pid."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, TypeVar

import accessoryd
from accessoryd import aio

from schema_check import Recorder

REPO = Path(__file__).resolve().parents[2]
T = TypeVar("T")


def products() -> Path:
    """The folder with the built accessoryd, accessory-sim and accessoryctl: `$ACCESSORYD_PRODUCTS`, else
    what `swift build --show-bin-path` names. Missing products are an error, not a skip: a
    suite that silently ran nothing would pass."""
    folder = os.environ.get("ACCESSORYD_PRODUCTS")
    if not folder:
        swift = os.environ.get("SWIFT", "swift")
        folder = subprocess.run(
            [swift, "build", "--show-bin-path"], cwd=REPO, check=True, capture_output=True, text=True, timeout=120
        ).stdout.strip()
    path = Path(folder)
    for name in ("accessoryd", "accessory-sim", "accessoryctl"):
        if not os.access(path / name, os.X_OK):
            raise RuntimeError(f"{path / name} is not built: run `swift build` first (or set ACCESSORYD_PRODUCTS)")
    return path


def echo(name: str, **options: Any) -> str:
    """A simulated echo accessory with `\\n` line framing; `options` are accessory-sim options."""
    return simulated(name, "echo", '{type: line, delimiter: "\\n"}', **options)


def simulated(name: str, personality: str, link_framing: str, extra: str = "", **options: Any) -> str:
    """A `simulate:` accessory: `link_framing` is the daemon's framing (YAML flow), `extra` more
    members, `options` accessory-sim options (`delay_ms=5` runs it with `--delay-ms 5`)."""
    members = ", ".join([f"personality: {personality}"] + [f"{k}: {v}" for k, v in options.items()])
    line = f"  - {{name: {name}, simulate: {{{members}}}, framing: {link_framing}"
    return line + (f", {extra}" if extra else "") + "}"


MODEM = simulated(
    "modem",
    "at-modem",
    '{type: line, delimiter: "\\r\\n", terminator: "\\r\\n"}',
    "response: {until: '^(OK|ERROR)$', timeout_ms: 2000}, unsolicited: ['^RING$', '^\\+CMTI: .*']",
    delay_ms=5,
)
GPS = simulated("gps", "nmea", '{type: line, delimiter: "\\r\\n"}')
SLIP = simulated("slip", "framed", "{type: slip, max_frame_bytes: 4096}", framing="slip")


def child_pids(pid: int) -> List[int]:
    """The processes whose parent is `pid` (read from /proc)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        # The command may contain spaces and parentheses: the fields follow the last ")".
        fields = stat[stat.rfind(")") + 2 :].split()
        if len(fields) > 1 and int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def wait_until(condition: Callable[[], bool], seconds: float = 10, what: str = "the condition") -> None:
    """Polls `condition` every 10 ms until it holds; fails after `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"{what} did not happen within {seconds} s")
        time.sleep(0.01)


def bounded(seconds: float, body: Callable[[], T]) -> T:
    """Runs `body` on a thread and returns its result (or raises its exception); fails the test
    if it has not finished after `seconds` (a hung call cannot hang the suite)."""
    outcome: Dict[str, Any] = {}

    def run() -> None:
        try:
            outcome["value"] = body()
        except BaseException as error:  # handed to the test's thread
            outcome["error"] = error

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        raise AssertionError(f"still running after {seconds} s (hung)")
    if "error" in outcome:
        raise outcome["error"]
    value: T = outcome["value"]
    return value


class Daemon:
    """One accessoryd child on a configuration of `accessories` (YAML flow lines)."""

    def __init__(self, accessories: List[str], recorder: Recorder, limits: str = "", ready: Optional[List[str]] = None) -> None:
        self.recorder = recorder
        self.folder = Path(tempfile.mkdtemp(prefix="adpy-", dir="/tmp"))
        self.socket = str(self.folder / "accessoryd.sock")
        config = f'socket:\n  path: {self.socket}\n  mode: "0600"\n'
        control = os.environ.get("ACCESSORYD_IT_CONTROL_THREAD")
        if control:
            config += f"threads:\n  control: {control}\n"
        if limits:
            config += f"limits: {limits}\n"
        config += "accessories:\n" + "\n".join(accessories) + "\n"
        (self.folder / "accessoryd.yaml").write_text(config)
        self.log_path = self.folder / "accessoryd.log"
        self._children: List[int] = []
        self._names = ready if ready is not None else [line.split("name: ")[1].split(",")[0] for line in accessories]
        self._launch()

    def _launch(self) -> None:
        """Starts accessoryd on the folder's configuration and waits until it is ready."""
        bin_path = products()
        with open(self.log_path, "ab") as log:
            self.process = subprocess.Popen(
                [
                    str(bin_path / "accessoryd"),
                    "--config",
                    str(self.folder / "accessoryd.yaml"),
                    "--runtime-dir",
                    str(self.folder),
                ],
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
            )
        self.pid = self.process.pid
        try:
            self.wait_ready(self._names)
        except BaseException:
            self.stop()
            raise

    def halt(self) -> Optional[int]:
        """SIGTERM, as `systemctl restart` sends it, and waits (bounded) for the exit and for the
        simulators to be stopped; the folder, configuration and socket path stay for
        :meth:`start_again`. Returns the exit status."""
        status = self._terminate()
        self._stop_orphans()
        return status

    def start_again(self) -> None:
        """A new accessoryd on the same configuration and socket path (as a restart). The
        socket file a killed daemon left is removed first, so that waiting for the socket waits
        for the new one."""
        try:
            os.unlink(self.socket)
        except FileNotFoundError:
            pass
        self._launch()

    def wait_ready(self, names: List[str], seconds: float = 20) -> None:
        """Waits (bounded) for the socket, then until every accessory in `names` is ready."""
        wait_until(lambda: os.path.exists(self.socket) or self.process.poll() is not None, seconds, "the socket")
        if self.process.poll() is not None:
            raise RuntimeError(f"accessoryd exited with {self.process.returncode}:\n{self.log()}")
        deadline = time.monotonic() + seconds
        with accessoryd.Client(self.socket) as client:
            while True:
                states = {d.name: d.state for d in client.devices()}
                if all(states.get(name) == "ready" for name in names):
                    return
                if time.monotonic() > deadline:
                    raise RuntimeError(f"not ready within {seconds} s: {states}\n{self.log()}")
                time.sleep(0.02)

    def client(self, **options: Any) -> accessoryd.Client:
        """A blocking client whose traffic is checked against the OpenRPC document; `options`
        are more of `Client`'s keyword arguments."""
        return accessoryd.Client(self.socket, trace=self.recorder.tracer(), **options)

    async def aio_client(self) -> aio.Client:
        return await aio.connect(self.socket, trace=self.recorder.tracer())

    def log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def signal(self, number: int) -> None:
        """Sends `number` to the daemon (noting its simulators first, to stop them later)."""
        self._children = child_pids(self.pid)
        self.process.send_signal(number)

    def stop(self) -> Optional[int]:
        """SIGTERM, waits (bounded; SIGKILL after 10 s), stops orphaned simulators, removes the
        folder. Returns the exit status."""
        status = self._terminate()
        self._stop_orphans()
        shutil.rmtree(self.folder, ignore_errors=True)
        return status

    def _terminate(self) -> Optional[int]:
        if self.process.poll() is None:
            self._children = child_pids(self.pid)
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
        return self.process.returncode

    def _stop_orphans(self) -> None:
        """Simulators of a daemon that was killed are orphans: they are stopped by pid."""
        for pid in self._children:
            try:
                os.kill(pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        self._children = []
