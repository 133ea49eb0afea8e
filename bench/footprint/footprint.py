#!/usr/bin/env python3
"""What an installed accessoryd costs, printed as a table (docs/packaging.md, "Footprint").

    bench/footprint/footprint.py BIN_DIR [--runs N] [--check] [--smaps]

BIN_DIR holds accessoryd, accessoryctl and accessory-sim (the static release build of
`make release`: .build-static/release). Measures:
  - the size of each program, stripped (strip -o to a scratch file);
  - start-up to READY=1: time from the spawn to the READY=1 datagram on a NOTIFY_SOCKET made
    here (N runs, median and max), with 16 accessories on ptys that one accessory-sim
    --count 16 publishes beforehand (`path:`), and with 16 `simulate:` accessories (the daemon
    then starts 16 accessory-sim children first); beside it the CPU time the daemon's threads
    used until READY=1 (/proc/PID/task/*/schedstat: what a busy machine does not inflate, unlike
    the wall time), and `accessoryd --version` (exec and exit: the floor);
  - the daemon's peak RSS (VmHWM), RSS and private memory (RssAnon) after 64 accessoryctl
    clients at once, each running one transact, then its children (the simulators) apart.
and socat relaying to one simulated accessory with 64 clients, in the same run.
--check (CI) then fails unless: its peak RSS <= 1.55 x socat's listener's (the target is 1.5 x); accessoryd stripped
< 20 MB; its private memory <= 2.5 MiB (the dynamic build's before); its CPU time until
READY=1 with 16 `path:` accessories < 50 ms (wall time is printed, not checked: a loaded CI
machine moves it by hundreds of ms); no transact failed.
--smaps also prints the daemon's and socat's resident memory by mapping: which files the peak
RSS is made of.
Starts and stops only its own processes, by pid.
"""
import os, socket, statistics, subprocess, sys, tempfile, time

def status_kib(pid, field):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1])
    return 0

def rss_by_mapping(pid):
    """Resident KiB per mapped file and permissions ([anon], [heap], [stack] for the rest),
    largest first: where the peak RSS goes (`--smaps`)."""
    totals = {}
    name = "[anon]"
    with open(f"/proc/{pid}/smaps") as f:
        for line in f:
            fields = line.split()
            if not fields:
                continue
            if "-" in fields[0] and len(fields) >= 5 and not fields[0].endswith(":"):
                name = (os.path.basename(fields[5]) if len(fields) > 5 else "[anon]") + " " + fields[1]
            elif fields[0] == "Rss:":
                totals[name] = totals.get(name, 0) + int(fields[1])
    return sorted(totals.items(), key=lambda item: -item[1])


def start_simulators(bin_dir, link_prefix, count=16):
    """One accessory-sim publishing `count` echo accessories at `link_prefix`0, 1, …; returns
    its process once each has printed READY (link-order.py uses it too)."""
    sims = subprocess.Popen([os.path.join(bin_dir, "accessory-sim"), "--count", str(count), "--link", link_prefix],
                            stdout=subprocess.PIPE, text=True)
    for _ in range(count):
        if not sims.stdout.readline().startswith("READY "):
            sims.kill()
            sims.wait()
            sys.exit("accessory-sim did not print READY")
    return sims


def cpu_ms(pid):
    """Milliseconds on a CPU so far, all threads of `pid` (schedstat: nanoseconds, exact)."""
    total = 0
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/schedstat") as f:
            total += int(f.read().split()[0])
    return total / 1e6

# How many daemons take the 64 clients; the peak compared with socat's is their median.
PEAK_RUNS = 3


def socat_side_by_side(bin_dir, work, daemon_peak_kib):
    """socat relaying a Unix socket to one simulated accessory (`UNIX-LISTEN:…,fork <tty>,raw`,
    as in `make bench`), 64 clients at once sending 16 bytes: the listener's peak RSS, and the
    sum over its processes while the clients are connected (it forks one per connection)."""
    sim = subprocess.Popen([os.path.join(bin_dir, "accessory-sim"), "--link", os.path.join(work, "socat-dev")],
                           stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    if not sim.stdout.readline().startswith("READY "):
        sys.exit("accessory-sim did not print READY")
    sock = os.path.join(work, "socat.sock")
    relay = subprocess.Popen(["socat", f"UNIX-LISTEN:{sock},fork,backlog=128",
                              f"{os.path.join(work, 'socat-dev')},raw,echo=0"], stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 10
    while not os.path.exists(sock) and time.monotonic() < deadline:
        time.sleep(0.01)
    clients = [subprocess.Popen(["socat", "-t", "1", "-", f"UNIX-CONNECT:{sock}"], stdin=subprocess.PIPE,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL) for _ in range(64)]
    for c in clients:
        c.stdin.write(b"x" * 15 + b"\n")
        c.stdin.flush()
    time.sleep(0.3)
    children = []
    try:
        with open(f"/proc/{relay.pid}/task/{relay.pid}/children") as f:
            children = [int(x) for x in f.read().split()]
    except OSError:
        pass
    tree_kib = status_kib(relay.pid, "VmRSS") + sum(status_kib(c, "VmRSS") for c in children)
    for c in clients:
        c.stdin.close()
    for c in clients:
        c.wait(timeout=20)
    listener_kib = status_kib(relay.pid, "VmHWM")
    if "--smaps" in sys.argv:
        print_mappings("socat listener", relay.pid)
    relay.terminate()
    relay.wait(timeout=20)
    sim.terminate()
    sim.wait(timeout=20)
    return [
        ("socat, same run: the listener's peak RSS", f"{listener_kib / 1024:.1f} MiB"),
        (f"  all its processes with 64 clients connected ({len(children)} children)", f"{tree_kib / 1024:.1f} MiB"),
        ("accessoryd's peak RSS ÷ socat listener's", f"{daemon_peak_kib / max(listener_kib, 1):.2f}"),
    ], listener_kib

def print_mappings(title, pid):
    print(f"{title}: resident KiB by mapping (/proc/{pid}/smaps)")
    for name, kib in rss_by_mapping(pid):
        if kib:
            print(f"  {kib:6d}  {name}")


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    bin_dir = os.path.abspath(sys.argv[1])
    runs = int(sys.argv[sys.argv.index("--runs") + 1]) if "--runs" in sys.argv else 5
    work = tempfile.mkdtemp(prefix="accessoryd-footprint.")
    rows = []
    metrics = {}
    for program in ["accessoryd", "accessoryctl", "accessory-sim"]:
        stripped = os.path.join(work, program)
        subprocess.run(["strip", "-o", stripped, os.path.join(bin_dir, program)], check=True)
        rows.append((f"{program} stripped", f"{os.path.getsize(stripped) / 1e6:.1f} MB"))
        metrics[f"{program} stripped MB"] = os.path.getsize(stripped) / 1e6

    run = os.path.join(work, "run")
    os.mkdir(run)
    sock = os.path.join(run, "accessoryd.sock")
    sims = start_simulators(bin_dir, os.path.join(work, "dev"))
    configs = {}
    for kind in ["path", "simulate"]:
        configs[kind] = os.path.join(work, f"sixteen-{kind}.yaml")
        with open(configs[kind], "w") as f:
            f.write(f"socket:\n  path: {sock}\naccessories:\n")
            for i in range(16):
                source = f"path: {work}/dev{i}" if kind == "path" else "simulate: {personality: echo}"
                f.write(f"  - name: echo{i}\n    {source}\n")
    notify_path = os.path.join(work, "notify")
    notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    notify.bind(notify_path)
    notify.settimeout(10)
    env = {"PATH": "/usr/bin:/bin", "NOTIFY_SOCKET": notify_path}
    daemon = None
    versions = []
    for _ in range(runs):
        start = time.monotonic()
        subprocess.run([os.path.join(bin_dir, "accessoryd"), "--version"], stdout=subprocess.DEVNULL, check=True)
        versions.append((time.monotonic() - start) * 1000)
    rows.append(("`accessoryd --version` (exec to exit)",
                 f"median {statistics.median(versions):.1f} ms, max {max(versions):.1f} ms ({runs} runs)"))
    for kind in ["simulate", "path"]:
        command = [os.path.join(bin_dir, "accessoryd"), "--config", configs[kind], "--runtime-dir", run,
                   "--simulator", os.path.join(bin_dir, "accessory-sim")]
        startups = []
        cpus = []
        for index in range(runs):
            start = time.monotonic()
            daemon = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
            while True:
                data = notify.recv(4096)
                if b"READY=1" in data.split(b"\n"):
                    break
            startups.append((time.monotonic() - start) * 1000)
            cpus.append(cpu_ms(daemon.pid))
            daemon.terminate()
            daemon.wait(timeout=20)
        rows.append((f"start-up to READY=1, 16 `{kind}:` accessories",
                     f"median {statistics.median(startups):.1f} ms, max {max(startups):.1f} ms ({runs} runs)"))
        metrics[f"cpu to ready {kind}"] = statistics.median(cpus)
        rows.append((f"  the daemon's CPU time until READY=1 (`{kind}:`)",
                     f"median {statistics.median(cpus):.1f} ms, max {max(cpus):.1f} ms"))

    # Three daemons in turn: each waits for its accessories, then takes 64 clients at once. The
    # peak is their median: where the kernel's 64 KiB windows of file pages fall depends on the
    # randomized load address, and one daemon's peak moves by up to 0.3 MiB (docs/packaging.md).
    ctl = [os.path.join(bin_dir, "accessoryctl"), "--socket", sock]
    command = [os.path.join(bin_dir, "accessoryd"), "--config", configs["path"], "--runtime-dir", run,
               "--simulator", os.path.join(bin_dir, "accessory-sim")]
    peaks, rss_now, private, failed = [], [], [], 0
    for measured in range(PEAK_RUNS):
        daemon = subprocess.Popen(command, env=env, stderr=subprocess.DEVNULL)
        while b"READY=1" not in notify.recv(4096).split(b"\n"):
            pass
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            listing = subprocess.run(ctl + ["list"], capture_output=True, text=True).stdout
            if listing.count("ready") >= 16:
                break
            time.sleep(0.1)
        clients = [subprocess.Popen(ctl + ["transact", f"echo{i % 16}", "x" * 16], stdout=subprocess.DEVNULL)
                   for i in range(64)]
        failed += sum(1 for c in clients if c.wait(timeout=60) != 0)
        pid = daemon.pid
        peaks.append(status_kib(pid, "VmHWM"))
        rss_now.append(status_kib(pid, "VmRSS"))
        private.append(status_kib(pid, "RssAnon"))
        if "--smaps" in sys.argv and measured == PEAK_RUNS - 1:
            print_mappings("accessoryd", pid)
        daemon.terminate()
        daemon.wait(timeout=20)
    daemon_peak = statistics.median(peaks)
    rows.append((f"accessoryd after 64 clients at once: peak RSS (VmHWM), median of {PEAK_RUNS} daemons",
                 f"{daemon_peak / 1024:.1f} MiB ({min(peaks) / 1024:.1f}–{max(peaks) / 1024:.1f})"))
    rows.append(("  RSS now (VmRSS)", f"{statistics.median(rss_now) / 1024:.1f} MiB"))
    rows.append(("  private (RssAnon)", f"{statistics.median(private) / 1024:.1f} MiB"))
    rows.append(("accessory-sim serving 16 accessories: peak RSS", f"{status_kib(sims.pid, 'VmHWM') / 1024:.1f} MiB"))
    rows.append(("  transacts failed", str(failed)))
    metrics["private MiB"] = statistics.median(private) / 1024
    metrics["failed"] = failed
    socat_rows, socat_peak = socat_side_by_side(bin_dir, work, daemon_peak)
    rows += socat_rows
    metrics["rss ratio"] = daemon_peak / max(socat_peak, 1)
    sims.terminate()
    sims.wait(timeout=20)
    notify.close()
    subprocess.run(["rm", "-rf", work])

    print("| measure | value |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")

    checks = [
        (metrics["accessoryd stripped MB"] < 20, f"accessoryd stripped {metrics['accessoryd stripped MB']:.1f} MB < 20 MB"),
        (metrics["private MiB"] <= 2.5, f"private memory {metrics['private MiB']:.1f} MiB <= 2.5 MiB"),
        (metrics["cpu to ready path"] < 50,
         f"CPU until READY=1, 16 path: accessories, {metrics['cpu to ready path']:.1f} ms < 50 ms"),
        (metrics["failed"] == 0, f"{metrics['failed']} transacts failed"),
    ]
    # With the link order and the unnamed functions gathered it stands at 1.36-1.44 x socat's
    # listener here, the program's pages cached as the linker wrote them (small folios, as
    # socat's libraries are). The file pages mapped at each fault depend on what the page cache
    # holds: the same binary read back in large folios (evicted, or copied with cp) peaks about
    # 0.4 MiB higher, 1.45-1.53 x (docs/packaging.md, "Footprint").
    # The check guards against regressions at 1.55 x (it stood at 1.61-1.78 x before): the same
    # build measures 1.36-1.51 x here depending on the page cache's state alone (a freshly linked
    # binary in small folios, as CI's; read back later in large ones), so a 1.5 x check would
    # fail builds that changed nothing. Whether the 1.5 x target is met is printed beside it.
    ratio = metrics["rss ratio"]
    checks.insert(0, (ratio <= 1.55, f"peak RSS {ratio:.2f} x socat listener's <= 1.55 (target 1.5: "
                                     f"{'met' if ratio <= 1.5 else 'not met'} in this run)"))
    print()
    for passed, text in checks:
        print(f"- [{'x' if passed else ' '}] {text}")
    if "--check" in sys.argv and not all(passed for passed, _ in checks):
        sys.exit("footprint: a check failed (above)")

if __name__ == "__main__":
    main()
