#!/usr/bin/env python3
"""Profiles accessoryd's request path: N sequential 16-byte `transact`s on an echo-accessory,
with the daemon run under callgrind (instructions per request: a run of N minus a run of 200,
divided by N - 200: some one-time work, such as type metadata looked up by name, happens on the
first requests after the warm-up; a baseline of 0 counted it as ~5,000 instructions a request) or
with strace attached to every thread once it is ready (syscalls per request).

  bench/profile/request-profile.py --products "$(swift build -c release --show-bin-path)" \
      --tool callgrind --requests 2000
  bench/profile/request-profile.py --products ... --tool strace --requests 20000
  bench/profile/request-profile.py --products ... --tool perf --requests 20000   (where the time goes,
      kernel included: cpu-clock samples, as this machine has no hardware counters)
  bench/profile/request-profile.py --products ... --tool cpu --requests 20000    (user and system
      CPU of the daemon per request, from /proc/PID/stat)
  Add --trace text|hexdump|jsonl to any of them to run with a trace file on the accessory.
  Add --attach to stream instead: --requests N is then MiB sent through an `attach` session as
  compare-bench streams (256-byte lines in 4 KiB batches, 16 KiB in flight, every byte checked
  as it comes back), and every figure is per MiB:
  bench/profile/request-profile.py --products ... --tool strace --attach --requests 16

Every child it starts is stopped by pid; the temporary folder is removed.
"""
import argparse, json, os, re, select, shutil, signal, socket, subprocess, sys, tempfile, time


def wait_for(what, seconds, condition):
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            sys.exit(f"request-profile: gave up waiting for {what}")
        time.sleep(0.01)


class Client:
    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX)
        self.sock.connect(path)
        self.pending = b""
        self.next_id = 0

    def call(self, method, params=None):
        self.next_id += 1
        request = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            request["params"] = params
        self.sock.sendall(json.dumps(request).encode() + b"\n")
        while True:
            while b"\n" not in self.pending:
                chunk = self.sock.recv(65536)
                if not chunk:
                    sys.exit("request-profile: the daemon closed the connection")
                self.pending += chunk
            line, self.pending = self.pending.split(b"\n", 1)
            message = json.loads(line)
            if message.get("id") == self.next_id:
                return message


def stream(sock, mib):
    """Streams `mib` MiB through an attached connection, compare-bench's pattern; checks each byte."""
    total = (mib << 20) // 256
    sent = received = 0
    outbound, expected = bytearray(), bytearray()
    sock.setblocking(False)
    while received < total * 256:
        while sent < total and sent * 256 - received < 16384 and len(outbound) < 4096:
            sent += 1
            outbound += f"k0s{sent}".ljust(255, ".").encode() + b"\n"
        if outbound:
            try:
                count = sock.send(outbound)
                expected += outbound[:count]
                del outbound[:count]
            except BlockingIOError:
                pass
        readable, _, _ = select.select([sock], [sock] if outbound else [], [], 5)
        if not readable and not outbound:
            sys.exit(f"request-profile: streaming stopped at {received} bytes")
        if readable:
            chunk = sock.recv(65536)
            if not chunk or expected[:len(chunk)] != chunk:
                sys.exit(f"request-profile: the stream ended or differed at byte {received}")
            del expected[:len(chunk)]
            received += len(chunk)


def run(args, folder, requests):
    echo = subprocess.Popen([os.path.join(args.products, "echo-accessory"), "--link", folder + "/tty"],
                            stdout=subprocess.PIPE, text=True)
    children = [echo]
    strace = None
    unit = "MiB" if args.attach else "request"
    try:
        echo.stdout.readline()
        sock = folder + "/d.sock"
        with open(folder + "/d.yaml", "w") as config:
            config.write(f"socket: {{path: {sock}}}\nlog: {{level: warning}}\n"
                         + ("threads: {control: own}\n" if args.own else "") + "accessories:\n"
                         f"  - {{name: echo, path: {folder}/tty, framing: {{type: line, delimiter: \"\\n\"}}"
                         + (f", trace: {{file: {folder}/echo.trace, format: {args.trace}}}" if args.trace else "")
                         + "}\n")
        daemon_binary = os.path.join(args.products, "accessoryd")
        if args.tool == "callgrind":
            # Valgrind 3.19 cannot read the DWARF 5 the Swift 6 toolchain writes and gives up;
            # a copy without debug sections keeps the symbol table, which is all it needs.
            daemon_binary = folder + "/accessoryd-nodebug"
            if not os.path.exists(daemon_binary):
                subprocess.run(["objcopy", "--strip-debug", os.path.join(args.products, "accessoryd"),
                                daemon_binary], check=True)
        command = [daemon_binary, "--config", folder + "/d.yaml", "--runtime-dir", folder]
        out = folder + f"/callgrind.{requests}"
        if args.tool == "callgrind":
            command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}"] + command
        daemon = subprocess.Popen(command, stderr=subprocess.DEVNULL)
        children.append(daemon)
        wait_for("the socket", 120, lambda: os.path.exists(sock))
        client = None

        def ready():
            nonlocal client
            try:
                client = client or Client(sock)
            except OSError:
                return False
            devices = client.call("devices.list")["result"]["devices"]
            return devices[0]["state"] == "ready"

        wait_for("the accessory", 120, ready)
        for _ in range(20):  # warm up: the first requests allocate what later ones reuse
            client.call("transact", {"device": "echo", "data": "warm-up"})
        if args.attach:
            assert client.call("attach", {"device": "echo"})["result"]["attached"], "attach refused"
            client.pending = b""
        if args.tool == "perf":
            strace = subprocess.Popen(["perf", "record", "-q", "-e", "cpu-clock", "-F", "20000", "-g",
                                       "-o", folder + "/perf.data", "-p", str(daemon.pid)],
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            children.append(strace)
            time.sleep(1)
        if args.tool == "strace":
            tids = os.listdir(f"/proc/{daemon.pid}/task")
            strace = subprocess.Popen(["strace", "-c", "-f", "-o", folder + "/strace.txt"]
                                      + sum((["-p", t] for t in tids), []), stderr=subprocess.DEVNULL)
            children.append(strace)
            time.sleep(1)
        def cpu_ticks():  # utime and stime of the daemon, all threads, in clock ticks
            fields = open(f"/proc/{daemon.pid}/stat").read().rsplit(")", 1)[1].split()
            return int(fields[11]), int(fields[12])
        def per_thread():  # {thread name: (ns on a CPU, times scheduled in)}: scheduler-exact
            threads = {}
            for task in os.listdir(f"/proc/{daemon.pid}/task"):
                try:
                    name = open(f"/proc/{daemon.pid}/task/{task}/comm").read().strip() + f"/{task}"
                    ran, _, slices = open(f"/proc/{daemon.pid}/task/{task}/schedstat").read().split()[:3]
                    threads[name] = (int(ran), int(slices))
                except OSError:
                    pass
            return threads

        def on_cpu_ns():
            return sum(ran for ran, _ in per_thread().values())
        threads_before = per_thread()
        cpu_before = cpu_ticks()
        on_cpu_before = on_cpu_ns()
        start = time.monotonic()
        if args.attach:
            stream(client.sock, requests)
        for sequence in range(0 if args.attach else requests):
            payload = f"k0s{sequence}".ljust(16, ".")
            reply = client.call("transact", {"device": "echo", "data": payload})
            assert reply["result"]["frames"][0]["data"] == payload, reply
        elapsed = time.monotonic() - start
        if args.tool == "cpu":
            tick = os.sysconf("SC_CLK_TCK")
            user, system = (after - before for after, before in zip(cpu_ticks(), cpu_before))
            on_cpu = on_cpu_ns() - on_cpu_before
            print(f"daemon CPU per {unit}: {on_cpu / requests / 1e3:.1f} µs on a CPU (schedstat); by ticks, user "
                  f"{user / tick / requests * 1e6:.1f} µs, system {system / tick / requests * 1e6:.1f} µs; "
                  f"{elapsed / requests * 1e6:.1f} µs per {unit} (a Python client, {requests} {unit}s)")
            for name, (ran, slices) in sorted(per_thread().items()):
                ran0, slices0 = threads_before.get(name, (0, 0))
                if slices - slices0 > requests / 10:
                    print(f"  thread {name}: {(ran - ran0) / requests / 1e3:.1f} µs and "
                          f"{(slices - slices0) / requests:.2f} wake-ups per {unit}")
        if strace and args.tool == "perf":
            strace.send_signal(signal.SIGINT)
            strace.wait(timeout=60)
            for sort in (["--sort", "dso"], ["--sort", "dso,sym"]):
                report = subprocess.run(["perf", "report", "-i", folder + "/perf.data", "--no-children",
                                         "--percent-limit", "0.7", "--stdio", "-g", "none"] + sort,
                                        capture_output=True, text=True).stdout
                print("\n".join(l for l in report.splitlines() if l and not l.startswith("#")))
            print(f"{elapsed / max(1, requests) * 1e6:.0f} µs per {unit} while sampled")
        elif strace:
            strace.send_signal(signal.SIGINT)
            strace.wait(timeout=30)
            report = open(folder + "/strace.txt").read()
            print(report)
            total = re.search(r"^100\.00\s+\S+\s+\S+\s+(\d+)\s+(\d+)?\s*total", report, re.M)
            if total:
                print(f"syscalls per {unit}: {int(total.group(1)) / requests:.2f} (strace slows it: "
                      f"{elapsed / max(1, requests) * 1e6:.0f} µs per {unit} while traced)")
        client.sock.close()
        daemon.send_signal(signal.SIGTERM)
        daemon.wait(timeout=120)
        if args.tool == "callgrind":
            summary = re.search(r"^(?:summary|totals): (\d+)", open(out).read(), re.M)
            if args.keep:
                shutil.copy(out, args.keep + f".{requests}")
            return int(summary.group(1))
        return None
    finally:
        for child in reversed(children):
            if child.poll() is None:
                child.send_signal(signal.SIGTERM)
                try:
                    child.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    child.kill()
                    child.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--products", required=True)
    parser.add_argument("--tool", choices=["callgrind", "strace", "perf", "cpu"], required=True)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--own", action="store_true",
                        help="threads: {control: own}: clients served on a loop thread of their own "
                             "(the default layout serves them on the device loop's thread)")
    parser.add_argument("--trace", choices=["text", "hexdump", "jsonl"],
                        help="give the accessory a trace file in this format (the cost of tracing: compare "
                             "with a run without it)")
    parser.add_argument("--attach", action="store_true",
                        help="stream --requests MiB through an `attach` session instead of transacts; figures per MiB")
    parser.add_argument("--keep", help="copy the callgrind output files to this prefix (for callgrind_annotate)")
    args = parser.parse_args()
    folder = tempfile.mkdtemp(prefix="request-profile-")
    try:
        if args.tool == "callgrind":
            baseline = min(200, args.requests // 2)
            base = run(args, folder, baseline)
            loaded = run(args, folder, args.requests)
            unit = "MiB through attach" if args.attach else "transact"
            print(f"instructions per {unit} (daemon, all threads): {(loaded - base) / (args.requests - baseline):,.0f} "
                  f"({loaded:,} with {args.requests}, {base:,} with {baseline})")
        else:
            run(args, folder, args.requests)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
