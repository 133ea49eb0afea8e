#!/usr/bin/env python3
"""How accessoryd's cost grows with its work, from 1 to 1,000 (docs/performance.md, "The cost curve").

    bench/cost-curve/cost_curve.py BIN_DIR [--reps N] [--seconds S] [--smoke] [--out DIR]

BIN_DIR holds accessoryd (the static release build of `make release`). The accessories are
bench/cost-curve/echo-many.c, built here with cc: one process, one epoll loop, N ptys, so that a
thousand accessories cost the machine one program. The client is this program: one thread, a
selector, pre-encoded requests, replies matched by id without a JSON parser; its own CPU is
measured and printed beside the daemon's, so that one can see it is not the bottleneck.

Series (each point is a fresh daemon; the points of all series are interleaved, N repetitions):
  - accessories: 1, 10, 100, 1,000 echo accessories, each sent a 16-byte `transact` every
    100 ms (open loop, on a fixed schedule, pipelined over at most 4 connections);
  - clients: 1, 10, 100, 1,000 connections, each sending a `transact` every 100 ms, round-robin
    over 16 accessories;
  - subscribers: one GPS sending an NMEA-shaped sentence every 100 ms (its first field is the
    send time), 1, 10, 100, 1,000 connections subscribed to it (`device.data`);
  - views: the same GPS read through 1, 4, 16, 64 `monitor` pty views;
  - lifecycle: 1, 10, 100, 1,000 accessories configured: spawn to READY=1 (NOTIFY_SOCKET), the
    daemon's CPU until then, until every accessory is ready, a SIGHUP reload (unchanged file, and
    one accessory added) from RELOADING=1 to READY=1, and SIGTERM to exit.
Measured per point over S seconds after a 1-second warm-up: the daemon's CPU % (all threads,
/proc/PID/task/*/schedstat), its CPU per unit of work (µs per request or per delivered line),
the client's CPU % (getrusage), RSS (VmRSS) and peak (VmHWM), p50/p99 latency (from each
request's scheduled time, so a late client counts against itself; for lines, from the time in
the sentence), and errors (error replies, requests unanswered 2 s after the window, lines a
subscriber missed).

Writes DIR/cost-curve.json, DIR/cost-curve.md (the table) and DIR/cost-curve.png (the plot, with
python3-matplotlib), rewrites the table between the markers in DIR/performance.md, and prints it.
--smoke: one repetition of small points, 1 s each.
RLIMIT_NOFILE is raised to its hard limit for itself and the daemon. Starts and stops only its
own processes, by pid; the temporary folder is removed.
"""
import argparse, datetime, json, os, re, resource, selectors, signal, socket, statistics, subprocess, sys
import queue, tempfile, termios, threading, time, tty

HERE = os.path.dirname(os.path.abspath(__file__))
ID = re.compile(rb'"id":(\d+)')
STAMP = re.compile(rb"\$GPGGA,(\d+),")
REASON = re.compile(rb'"(?:reason|limit)":"([a-z_]+)"')


def cpu_ns(pid):
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/schedstat") as f:
                total += int(f.read().split()[0])
        except OSError:
            pass
    return total


def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0


def self_cpu_s():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def percentile(values, fraction):
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


class Lab:
    """A work folder, the accessories (echo-many) and one daemon at a time."""

    def __init__(self, bin_dir, work):
        self.bin_dir, self.work = bin_dir, work
        self.echo_many = os.path.join(work, "echo-many")
        subprocess.run(["cc", "-O2", "-o", self.echo_many, os.path.join(HERE, "echo-many.c")], check=True)
        self.notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.notify.bind(os.path.join(work, "notify"))
        self.notices = queue.Queue()
        threading.Thread(target=self.read_notify, daemon=True).start()
        self.socket_path = os.path.join(work, "d.sock")
        self.accessories = None
        self.daemon = None

    def start_accessories(self, count, tick_ms=0):
        prefix = os.path.join(self.work, "gps" if tick_ms else "dev")
        command = [self.echo_many, "--count", str(count), "--link", prefix] + (
            ["--tick-ms", str(tick_ms)] if tick_ms else [])
        self.accessories = subprocess.Popen(command, stdout=subprocess.PIPE, text=True)
        if not self.accessories.stdout.readline().startswith("READY"):
            sys.exit("cost-curve: echo-many did not start")
        return prefix

    def write_config(self, name, lines):
        path = os.path.join(self.work, name)
        with open(path, "w") as f:
            f.write(f"socket: {{path: {self.socket_path}}}\nlog: {{level: warning}}\n"
                    "limits: {max_clients: 2048, max_connections_per_uid: 2048}\naccessories:\n")
            f.write("".join(lines))
        return path

    @staticmethod
    def echo_lines(prefix, count, first=0):
        return [f'  - {{name: e{i}, path: {prefix}{i}, framing: {{type: line, delimiter: "\\n"}}}}\n'
                for i in range(first, first + count)]

    def read_notify(self):
        """A thread: reads every datagram at once (a Unix datagram socket queues only about ten,
        and the daemon says STATUS= as clients come and go), keeping the words for wait_notify."""
        while True:
            try:
                data = self.notify.recv(65536)
            except OSError:
                return
            for word in data.split(b"\n"):
                self.notices.put(word)

    def drain_notify(self):
        """Drops what the daemon said so far: a wait then sees only what follows."""
        while not self.notices.empty():
            self.notices.get_nowait()

    def wait_notify(self, word):
        while self.notices.get(timeout=60) != word:
            pass

    def start_daemon(self, config):
        self.drain_notify()
        start = time.monotonic()
        self.daemon = subprocess.Popen(
            [os.path.join(self.bin_dir, "accessoryd"), "--config", config, "--runtime-dir", self.work],
            env={"PATH": "/usr/bin:/bin", "NOTIFY_SOCKET": os.path.join(self.work, "notify")})
        self.wait_notify(b"READY=1")
        return (time.monotonic() - start) * 1000, cpu_ns(self.daemon.pid) / 1e6

    def call(self, method):
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(self.socket_path)
            s.sendall(json.dumps({"jsonrpc": "2.0", "id": 1, "method": method}).encode() + b"\n")
            data = b""
            while not data.endswith(b"\n"):
                chunk = s.recv(1 << 20)
                if not chunk:
                    break
                data += chunk
            return data

    def wait_all_ready(self, count, seconds=60):
        start = time.monotonic()
        while time.monotonic() - start < seconds:
            if self.call("devices.list").count(b'"state":"ready"') >= count:
                return (time.monotonic() - start) * 1000
            time.sleep(0.01)
        sys.exit(f"cost-curve: {count} accessories not ready in {seconds} s")

    def stop_daemon(self):
        start = time.monotonic()
        self.daemon.send_signal(signal.SIGTERM)
        self.daemon.wait(timeout=60)
        self.daemon = None
        return (time.monotonic() - start) * 1000

    def stop_accessories(self):
        self.accessories.send_signal(signal.SIGTERM)
        self.accessories.wait(timeout=20)
        self.accessories = None


def connect(path, count):
    sockets = []
    for _ in range(count):
        s = socket.socket(socket.AF_UNIX)
        s.connect(path)
        s.setblocking(False)
        sockets.append(s)
    return sockets


class Window:
    """CPU of the daemon, the accessories and this client between start() and stop()."""

    def __init__(self, lab):
        self.lab = lab

    def start(self):
        self.t = time.monotonic()
        self.daemon = cpu_ns(self.lab.daemon.pid)
        self.echo = cpu_ns(self.lab.accessories.pid)
        self.client = self_cpu_s()

    def stop(self):
        wall = time.monotonic() - self.t
        pid = self.lab.daemon.pid
        return {
            "seconds": wall,
            "daemon_cpu_pct": (cpu_ns(pid) - self.daemon) / 1e7 / wall,
            "accessories_cpu_pct": (cpu_ns(self.lab.accessories.pid) - self.echo) / 1e7 / wall,
            "client_cpu_pct": (self_cpu_s() - self.client) * 100 / wall,
            "rss_mib": status_kib(pid, "VmRSS") / 1024,
            "peak_rss_mib": status_kib(pid, "VmHWM") / 1024,
            "fds": len(os.listdir(f"/proc/{pid}/fd")),
            "threads": len(os.listdir(f"/proc/{pid}/task")),
        }


def transact_load(lab, sockets, streams, device_of, seconds, warmup=1.0):
    """Open loop: stream s sends its k-th request at t0 + (k * len(streams) + s) * interval,
    every 100 ms per stream, on sockets[streams[s]]; device_of(s, k) names the accessory."""
    count = len(streams)
    interval = 0.1 / count
    selector = selectors.DefaultSelector()
    pending_out = {s: bytearray() for s in sockets}
    inbound = {s: bytearray() for s in sockets}
    for s in sockets:
        selector.register(s, selectors.EVENT_READ)
    scheduled = {}
    latencies, errors, error_kinds = [], 0, {}
    next_id, sent = 0, 0
    window = Window(lab)
    t0 = time.monotonic()
    measure_from, end = t0 + warmup, t0 + warmup + seconds
    measuring = False
    result = None
    drain_until = end + 2.0

    def flush(s):
        data = pending_out[s]
        try:
            wrote = s.send(data)
        except BlockingIOError:
            wrote = 0
        del data[:wrote]
        selector.modify(s, selectors.EVENT_READ | (selectors.EVENT_WRITE if data else 0))

    while True:
        now = time.monotonic()
        if not measuring and now >= measure_from:
            window.start()
            measuring = True
        if now >= end and result is None:
            result = window.stop()
        if now >= end and (not scheduled or now >= drain_until):
            break
        if now < end:
            due = int((now - t0) / interval) + 1
            touched = set()
            while sent < due:
                stream = sent % count
                k = sent // count
                next_id += 1
                s = sockets[streams[stream]]
                pending_out[s] += (b'{"jsonrpc":"2.0","id":%d,"method":"transact","params":{"device":"e%d",'
                                   b'"data":"0123456789abcde"}}\n' % (next_id, device_of(stream, k)))
                at = t0 + sent * interval
                scheduled[next_id] = at if at >= measure_from else -at
                touched.add(s)
                sent += 1
            for s in touched:
                flush(s)
            timeout = max(0.0, t0 + sent * interval - time.monotonic())
        else:
            timeout = 0.05
        for key, events in selector.select(timeout):
            s = key.fileobj
            if events & selectors.EVENT_WRITE:
                flush(s)
            if events & selectors.EVENT_READ:
                chunk = s.recv(1 << 18)
                if not chunk:
                    sys.exit("cost-curve: the daemon closed a connection")
                buffer = inbound[s]
                buffer += chunk
                cut = buffer.rfind(b"\n")
                if cut < 0:
                    continue
                arrived = time.monotonic()
                for line in bytes(buffer[:cut]).split(b"\n"):
                    match = ID.search(line)
                    at = scheduled.pop(int(match.group(1)), None) if match else None
                    if at is None or at < 0:
                        continue
                    if b'"error"' in line:
                        errors += 1
                        reason = REASON.search(line)
                        kind = reason.group(1).decode() if reason else "other"
                        error_kinds[kind] = error_kinds.get(kind, 0) + 1
                    else:
                        latencies.append(arrived - at)
                del buffer[:cut + 1]
    unanswered = sum(1 for at in scheduled.values() if at >= 0)
    if unanswered:
        error_kinds["unanswered"] = unanswered
    errors += unanswered
    selector.close()
    result.update({"requests": len(latencies) + errors, "errors": errors, "error_kinds": error_kinds,
                   "p50_ms": percentile(latencies, 0.5) * 1000, "p99_ms": percentile(latencies, 0.99) * 1000})
    result["cpu_us_per_item"] = result["daemon_cpu_pct"] * 1e4 * result["seconds"] / max(1, result["requests"])
    return result


def line_load(lab, readers, seconds, warmup=1.0):
    """Reads GPS lines on every reader (sockets or pty masters) for warmup + seconds; latency is
    the arrival time minus the time in the sentence; a reader that misses a sentence some other
    reader got in the window counts an error."""
    selector = selectors.DefaultSelector()
    for index, r in enumerate(readers):
        selector.register(r, selectors.EVENT_READ, index)
    inbound = [bytearray() for _ in readers]
    seen = [set() for _ in readers]
    latencies = []
    arrivals = 0
    window = Window(lab)
    t0 = time.monotonic()
    measure_from, end = t0 + warmup, t0 + warmup + seconds
    lo_ns, hi_ns = int(measure_from * 1e9), int((end - 0.3) * 1e9)
    window_started = False
    while time.monotonic() < end:
        if not window_started and time.monotonic() >= measure_from:
            window.start()
            window_started = True
        for key, _ in selector.select(0.05):
            r = key.fileobj
            chunk = r.recv(1 << 16) if isinstance(r, socket.socket) else os.read(r, 1 << 16)
            buffer = inbound[key.data]
            buffer += chunk
            cut = buffer.rfind(b"\n")
            if cut < 0:
                continue
            arrived = time.monotonic_ns()
            for stamp in STAMP.findall(bytes(buffer[:cut])):
                sent = int(stamp)
                if sent >= lo_ns:
                    arrivals += 1
                if lo_ns <= sent <= hi_ns:
                    seen[key.data].add(sent)
                    latencies.append(arrived - sent)
            del buffer[:cut + 1]
    result = window.stop()
    selector.close()
    everyone = set().union(*seen)
    # The work is every line that arrived in the window; the errors are counted on the lines
    # sent until 0.3 s before its end (later ones may still be on their way).
    result.update({"requests": arrivals, "errors": sum(len(everyone - s) for s in seen),
                   "p50_ms": percentile(latencies, 0.5) / 1e6, "p99_ms": percentile(latencies, 0.99) / 1e6})
    result["cpu_us_per_item"] = result["daemon_cpu_pct"] * 1e4 * result["seconds"] / max(1, arrivals)
    return result


def run_transacts(lab, accessories, connections, streams, device_of, seconds):
    """`accessories` echo accessories and `connections` clients under `transact_load`."""
    prefix = lab.start_accessories(accessories)
    lab.start_daemon(lab.write_config("t.yaml", Lab.echo_lines(prefix, accessories)))
    lab.wait_all_ready(accessories)
    sockets = connect(lab.socket_path, connections)
    result = transact_load(lab, sockets, streams, device_of, seconds)
    for s in sockets:
        s.close()
    lab.stop_daemon()
    lab.stop_accessories()
    return result


def run_accessories(lab, n, seconds):
    connections = min(4, n)
    return run_transacts(lab, n, connections, [i % connections for i in range(n)], lambda s, k: s, seconds)


def run_clients(lab, n, seconds):
    return run_transacts(lab, 16, n, list(range(n)), lambda s, k: (s + k) % 16, seconds)


def gps_config(lab, prefix, views=0):
    line = f'  - {{name: gps, path: {prefix}0, framing: {{type: line, delimiter: "\\r\\n"}}'
    if views:
        line += ", views: [" + ", ".join(f"{{pty: v{i}, mode: monitor}}" for i in range(views)) + "]"
    return lab.write_config("g.yaml", [line + "}\n"])


def subscribe_all(lab, n, params):
    """n connections, each subscribed with `params`; returns them (non-blocking) once each has its
    result."""
    sockets = connect(lab.socket_path, n)
    for s in sockets:
        s.setblocking(True)
        s.sendall(b'{"jsonrpc":"2.0","id":1,"method":"subscribe","params":%s}\n' % params)
    for s in sockets:
        reply = b""
        while b'"id":1' not in reply:
            reply += s.recv(1 << 16)
        s.setblocking(False)
    return sockets


def run_subscribers(lab, n, seconds):
    prefix = lab.start_accessories(1, tick_ms=100)
    lab.start_daemon(gps_config(lab, prefix))
    lab.wait_all_ready(1)
    start, before = time.monotonic(), cpu_ns(lab.daemon.pid)
    sockets = subscribe_all(lab, n, b'{"device":"gps","events":["data"]}')
    subscribe_ms, subscribe_cpu_ms = (time.monotonic() - start) * 1000, (cpu_ns(lab.daemon.pid) - before) / 1e6
    result = line_load(lab, sockets, seconds)
    result.update(subscribe_ms=subscribe_ms, subscribe_cpu_ms=subscribe_cpu_ms)
    for s in sockets:
        s.close()
    lab.stop_daemon()
    lab.stop_accessories()
    return result


def run_views(lab, n, seconds):
    prefix = lab.start_accessories(1, tick_ms=100)
    lab.start_daemon(gps_config(lab, prefix, views=n))
    lab.wait_all_ready(1)
    readers = []
    for i in range(n):
        fd = os.open(os.path.join(lab.work, "tty", f"v{i}"), os.O_RDWR | os.O_NOCTTY | os.O_NONBLOCK)
        tty.setraw(fd, termios.TCSANOW)
        readers.append(fd)
    result = line_load(lab, readers, seconds)
    for fd in readers:
        os.close(fd)
    lab.stop_daemon()
    lab.stop_accessories()
    return result


def run_lifecycle(lab, n):
    prefix = lab.start_accessories(n + 1)
    config = lab.write_config("l.yaml", Lab.echo_lines(prefix, n))
    ready_ms, ready_cpu_ms = lab.start_daemon(config)
    all_ready_ms = lab.wait_all_ready(n)
    rss = status_kib(lab.daemon.pid, "VmRSS") / 1024
    reloads = {}
    for name, lines in [("reload_same_ms", Lab.echo_lines(prefix, n)), ("reload_add_one_ms", Lab.echo_lines(prefix, n + 1))]:
        lab.write_config("l.yaml", lines)
        lab.drain_notify()
        before = cpu_ns(lab.daemon.pid)
        start = time.monotonic()
        lab.daemon.send_signal(signal.SIGHUP)
        lab.wait_notify(b"RELOADING=1")
        lab.wait_notify(b"READY=1")
        reloads[name] = (time.monotonic() - start) * 1000
        reloads[name.replace("_ms", "_cpu_ms")] = (cpu_ns(lab.daemon.pid) - before) / 1e6
    lab.wait_all_ready(n + 1)
    # A dashboard of 100 clients subscribing to every accessory, then leaving.
    start, before = time.monotonic(), cpu_ns(lab.daemon.pid)
    sockets = subscribe_all(lab, 100, b'{"events":["data","state"]}')
    reloads["subscribe_100_ms"] = (time.monotonic() - start) * 1000
    reloads["subscribe_100_cpu_ms"] = (cpu_ns(lab.daemon.pid) - before) / 1e6
    before = cpu_ns(lab.daemon.pid)
    for s in sockets:
        s.close()
    while not re.search(rb'"clients":1[,}]', lab.call("daemon.status")) and time.monotonic() - start < 60:
        time.sleep(0.01)
    reloads["leave_100_cpu_ms"] = (cpu_ns(lab.daemon.pid) - before) / 1e6
    shutdown_ms = lab.stop_daemon()
    lab.stop_accessories()
    return dict(ready_ms=ready_ms, ready_cpu_ms=ready_cpu_ms, all_ready_ms=all_ready_ms, rss_mib=rss,
                shutdown_ms=shutdown_ms, **reloads)


SERIES = {
    "accessories": (run_accessories, [1, 10, 100, 1000], "accessories, a transact each every 100 ms"),
    "clients": (run_clients, [1, 10, 100, 1000], "clients, a transact each every 100 ms over 16 accessories"),
    "subscribers": (run_subscribers, [1, 10, 100, 1000], "subscribers to one GPS at 10 Hz"),
    "views": (run_views, [1, 4, 16, 64], "monitor views of one GPS at 10 Hz"),
}


def spread(values, fmt):
    values = [v for v in values if v == v]
    if not values:
        return "–"
    middle = statistics.median(values)
    if len(values) == 1:
        return fmt.format(middle)
    return f"{fmt.format(middle)} ({fmt.format(min(values))}–{fmt.format(max(values))})"


def errors_cell(runs):
    """The errors of all repetitions, with their kinds (the limit an error reply names, or
    `unanswered`)."""
    kinds = {}
    for r in runs:
        for kind, count in r.get("error_kinds", {}).items():
            kinds[kind] = kinds.get(kind, 0) + count
    total = sum(r["errors"] for r in runs)
    return f"{total} ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))})" if kinds else str(total)


def table(results, reps, seconds):
    lines = [f"Each cell: median of {reps} repetitions (min–max); {seconds:g} s measured per point.", "",
             "| series | n | work/s | daemon CPU % | µs CPU per item | client CPU % | RSS MiB | fds | p50 ms | p99 ms | errors |",
             "|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for series, (_, points, _) in SERIES.items():
        for n in points:
            runs = results[series].get(str(n), [])
            if not runs:
                continue
            rate = statistics.median(r["requests"] / r["seconds"] for r in runs)
            lines.append(
                f"| {series} | {n:,} | {rate:,.0f} | {spread([r['daemon_cpu_pct'] for r in runs], '{:.1f}')} | "
                f"{spread([r['cpu_us_per_item'] for r in runs], '{:.1f}')} | "
                f"{spread([r['client_cpu_pct'] for r in runs], '{:.0f}')} | {spread([r['rss_mib'] for r in runs], '{:.1f}')} | "
                f"{max(r['fds'] for r in runs)} | "
                f"{spread([r['p50_ms'] for r in runs], '{:.2f}')} | {spread([r['p99_ms'] for r in runs], '{:.2f}')} | "
                f"{errors_cell(runs)} |")
    lines += ["", "| subscribers to one GPS | all subscribed, ms | daemon CPU for it, ms |", "|--:|--:|--:|"]
    for n, runs in results["subscribers"].items():
        lines.append(f"| {int(n):,} | {spread([r['subscribe_ms'] for r in runs], '{:.0f}')} | "
                     f"{spread([r['subscribe_cpu_ms'] for r in runs], '{:.1f}')} |")
    lines += ["", "| accessories configured | spawn to READY=1 ms | daemon CPU to READY=1 ms | until all ready ms | "
              "RSS MiB | SIGHUP, same file ms (CPU) | SIGHUP, one added ms (CPU) | "
              "100 clients subscribe to all ms (CPU) | their leaving, CPU ms | SIGTERM to exit ms |",
              "|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|"]
    for n, runs in results["lifecycle"].items():
        def cell(key, fmt="{:.0f}"):
            return spread([r[key] for r in runs], fmt)
        lines.append(f"| {int(n):,} | {cell('ready_ms')} | {cell('ready_cpu_ms')} | {cell('all_ready_ms')} | "
                     f"{cell('rss_mib', '{:.1f}')} | {cell('reload_same_ms')} ({cell('reload_same_cpu_ms')}) | "
                     f"{cell('reload_add_one_ms')} ({cell('reload_add_one_cpu_ms')}) | "
                     f"{cell('subscribe_100_ms')} ({cell('subscribe_100_cpu_ms')}) | {cell('leave_100_cpu_ms')} | "
                     f"{cell('shutdown_ms')} |")
    return "\n".join(lines) + "\n"


def plot(results, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    rows = [("daemon CPU %", "daemon_cpu_pct"), ("daemon µs CPU per item", "cpu_us_per_item"),
            ("RSS MiB", "rss_mib"), ("latency ms (p50 ●, p99 ▲)", "p50_ms")]
    figure, axes = plt.subplots(len(rows), len(SERIES), figsize=(16, 13), squeeze=False)
    for column, (series, (_, points, title)) in enumerate(SERIES.items()):
        for row, (label, key) in enumerate(rows):
            ax = axes[row][column]
            xs = [n for n in points if results[series].get(str(n))]
            keys = [("p50_ms", "o-"), ("p99_ms", "^--")] if key == "p50_ms" else [(key, "o-")]
            if key == "daemon_cpu_pct":
                keys.append(("client_cpu_pct", "s:"))
            for k, style in keys:
                medians = [statistics.median(r[k] for r in results[series][str(n)]) for n in xs]
                lows = [min(r[k] for r in results[series][str(n)]) for n in xs]
                highs = [max(r[k] for r in results[series][str(n)]) for n in xs]
                ax.errorbar(xs, medians, yerr=[[m - lo for m, lo in zip(medians, lows)],
                                               [hi - m for m, hi in zip(medians, highs)]],
                            fmt=style, capsize=3, label="this client" if k == "client_cpu_pct" else None)
            ax.set_xscale("log")
            if key in ("daemon_cpu_pct", "p50_ms"):
                ax.set_yscale("log")
            ax.set_ylim(bottom=0 if ax.get_yscale() == "linear" else None)
            ax.grid(True, which="both", alpha=0.3)
            if row == 0:
                ax.set_title(title, fontsize=10)
                if column == 0:
                    ax.legend(fontsize=8)
            if column == 0:
                ax.set_ylabel(label)
            if row == len(rows) - 1:
                ax.set_xlabel(series)
    figure.suptitle("accessoryd: cost as the work grows (make cost-curve; medians, bars min–max)")
    figure.tight_layout()
    figure.savefig(path, dpi=80)


def before_after(before, after, reps):
    """The lifecycle points and the subscribe of 1,000 subscribers, with two builds, alternating
    run by run; prints the daemon's CPU for each step side by side (medians, min–max)."""
    work = tempfile.mkdtemp(prefix="accessoryd-curve.")
    lab = Lab(before, work)
    found = {before: {}, after: {}}
    try:
        for _ in range(reps):
            for build in (before, after):
                lab.bin_dir = build
                for n in [100, 1000]:
                    found[build].setdefault(f"lifecycle {n}", []).append(run_lifecycle(lab, n))
                found[build].setdefault("subscribers 1000", []).append(run_subscribers(lab, 1000, 1))
    finally:
        for process in (lab.daemon, lab.accessories):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
        subprocess.run(["rm", "-rf", work])
    rows = [("lifecycle 100", "ready_cpu_ms", "100 accessories: daemon CPU to READY=1, ms"),
            ("lifecycle 1000", "ready_cpu_ms", "1,000 accessories: daemon CPU to READY=1, ms"),
            ("lifecycle 100", "subscribe_100_cpu_ms", "100 accessories: 100 clients subscribe to all, CPU ms"),
            ("lifecycle 1000", "subscribe_100_cpu_ms", "1,000 accessories: 100 clients subscribe to all, CPU ms"),
            ("lifecycle 1000", "leave_100_cpu_ms", "1,000 accessories: those 100 leave, CPU ms"),
            ("lifecycle 1000", "shutdown_ms", "1,000 accessories: SIGTERM to exit, ms"),
            ("subscribers 1000", "subscribe_cpu_ms", "one GPS: 1,000 clients subscribe, CPU ms")]
    print(f"| {reps} runs each, alternating | before | after | after ÷ before |\n|---|--:|--:|--:|")
    for point, key, label in rows:
        b = [r[key] for r in found[before][point]]
        a = [r[key] for r in found[after][point]]
        print(f"| {label} | {spread(b, '{:.1f}')} | {spread(a, '{:.1f}')} | "
              f"{statistics.median(a) / max(statistics.median(b), 1e-9):.2f} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("bin_dir")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=5)
    parser.add_argument("--smoke", action="store_true")
    parser.add_argument("--out", default=None, help="where to write cost-curve.{json,md,png}")
    parser.add_argument("--series", default=",".join(list(SERIES) + ["lifecycle"]))
    parser.add_argument("--before", default=None,
                        help="another build's folder: the start-up, reload, shutdown and subscribe "
                             "costs of both, interleaved, side by side (nothing else is run)")
    args = parser.parse_args()
    # SIGTERM unwinds like an exception, so that the `finally` below stops the children.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("cost-curve: stopped"))
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    if args.smoke:
        args.reps, args.seconds = 1, 1
        for name in SERIES:
            SERIES[name] = (SERIES[name][0], SERIES[name][1][:2], SERIES[name][2])
    chosen = args.series.split(",")
    lifecycle_points = [1, 10] if args.smoke else [1, 10, 100, 1000]
    if args.before:
        return before_after(os.path.abspath(args.before), os.path.abspath(args.bin_dir), args.reps)
    work = tempfile.mkdtemp(prefix="accessoryd-curve.")
    lab = Lab(os.path.abspath(args.bin_dir), work)
    results = {name: {} for name in list(SERIES) + ["lifecycle"]}
    try:
        for rep in range(args.reps):
            for series, (run, points, _) in SERIES.items():
                if series not in chosen:
                    continue
                for n in points:
                    result = run(lab, n, args.seconds)
                    results[series].setdefault(str(n), []).append(result)
                    print(f"rep {rep + 1} {series} {n}: daemon {result['daemon_cpu_pct']:.1f} % "
                          f"({result['cpu_us_per_item']:.1f} µs/item), client {result['client_cpu_pct']:.0f} %, "
                          f"p50 {result['p50_ms']:.2f} ms, p99 {result['p99_ms']:.2f} ms, "
                          f"errors {result['errors']} {result.get('error_kinds', '')}", file=sys.stderr, flush=True)
            if "lifecycle" in chosen:
                for n in lifecycle_points:
                    results["lifecycle"].setdefault(str(n), []).append(run_lifecycle(lab, n))
    finally:
        for process in (lab.daemon, lab.accessories):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
        subprocess.run(["rm", "-rf", work])
    text = table(results, args.reps, args.seconds)
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    print(text)
    if args.out:
        os.makedirs(args.out, exist_ok=True)
        with open(os.path.join(args.out, "cost-curve.json"), "w") as f:
            json.dump({"date": stamp, "reps": args.reps, "seconds": args.seconds, "results": results}, f, indent=1)
        with open(os.path.join(args.out, "cost-curve.md"), "w") as f:
            f.write(f"# The cost curve: the measured table\n\nMade by `make cost-curve` on {stamp} "
                    f"(`nproc` {os.cpu_count()}); docs/performance.md explains it.\n\n"
                    "![the cost curve](cost-curve.png)\n\n" + text)
        plot(results, os.path.join(args.out, "cost-curve.png"))
        # docs/performance.md shows the same table between two markers: rewritten here too.
        performance = os.path.join(args.out, "performance.md")
        if os.path.exists(performance):
            with open(performance) as f:
                page = f.read()
            begin, end = "<!-- cost-curve table: made by make cost-curve -->\n", "<!-- end of the cost-curve table -->"
            if begin in page and end in page:
                head, rest = page.split(begin, 1)
                tail = rest.split(end, 1)[1]
                page = f"{head}{begin}Measured {stamp} (`nproc` {os.cpu_count()}).\n\n{text}{end}{tail}"
                with open(performance, "w") as f:
                    f.write(page)


if __name__ == "__main__":
    main()
