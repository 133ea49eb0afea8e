#!/usr/bin/env python3
"""Writes packaging/accessoryd.order: the functions accessoryd runs, for the linker to place
side by side (lld --symbol-ordering-file; docs/packaging.md, "Footprint").

    bench/footprint/link-order.py BIN_DIR [--output FILE]

Why: the kernel maps a program's file pages around every page it faults in (64 KiB at a time),
so the resident size of the code follows how far apart the functions that run are, not how much
of them runs. Without an order, what a daemon runs is spread over most of the 6.7 MB `.text`
(the Swift runtime and standard library are linked in statically); listed first, it fits in a
few hundred KiB.

How: BIN_DIR's accessoryd (the `make release` build, with its symbols) runs under valgrind's
callgrind with 16 accessories on ptys (one accessory-sim --count 16), while accessoryctl does
what a daemon's life is made of: list, status, transacts from 64 clients at once, lock, a
monitor, a line through a shared and an exclusive pty view (a monitor view stands by), an
attach, a reload (SIGHUP), then SIGTERM. Every function callgrind saw run is written, once,
mangled as the linker knows it, in two parts: first what every daemon runs (start-up with a
NOTIFY_SOCKET as under systemd, list, status, 64 transacts: callgrind is told to dump there),
then what only the rest ran. The functions of the common part then share the fewest 64 KiB
windows (`make footprint` measures exactly that life), and the rest follows close by.

A function renamed since the file was made is simply not ordered (the link passes
--no-warn-symbol-ordering); `make footprint` shows when the file has gone stale. Run it again
after large changes: `make link-order`. The compiler's private helpers have no symbol (callgrind
shows them as addresses, skipped here): packaging/unnamed-functions.ld gathers them instead.
Starts and stops only its own processes, by pid.
"""
import json, os, select, signal, socket, subprocess, sys, tempfile, time, tty

from footprint import start_simulators


def wait_for(what, seconds, condition):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return
        time.sleep(0.1)
    sys.exit(f"link-order: timed out waiting for {what}")


def executed_functions(profiles):
    """Function names in callgrind's outputs (one per dump), in first-seen order, each once
    (`fn=(id) name` defines an id; `cfn=` lines name callees, which ran too)."""
    names, seen = [], set()
    for profile in profiles:
        add_functions(profile, names, seen)
    return names


def add_functions(profile, names, seen):
    with open(profile, errors="replace") as f:
        for line in f:
            if not (line.startswith("fn=") or line.startswith("cfn=")):
                continue
            value = line.split("=", 1)[1].strip()
            if value.startswith("("):
                closing = value.find(")")
                value = value[closing + 1:].strip()
            # callgrind marks a function's recursion levels (`name'2`): the same function.
            if "'" in value:
                value = value[:value.rindex("'")]
            if value and value not in seen and not value.startswith("0x"):
                seen.add(value)
                names.append(value)


# The accessories that get a pty view, and its mode.
VIEWS = {3: "shared", 4: "exclusive", 5: "monitor"}


def exchange_through_view(path, line):
    """Opens a view as a program opens a tty (raw), writes `line` and reads until its echo is
    back (at most 30 s: the daemon runs under callgrind)."""
    fd = os.open(path, os.O_RDWR | os.O_NOCTTY)
    try:
        tty.setraw(fd)
        os.write(fd, line)
        received = b""
        deadline = time.monotonic() + 30
        while not received.endswith(b"\n"):
            if time.monotonic() > deadline or not select.select([fd], [], [], 30)[0]:
                sys.exit(f"link-order: no echo through {path}")
            received += os.read(fd, 256)
    finally:
        os.close(fd)


def attach_and_echo(sock_path, device):
    """`attach` on a socket, one raw line there and back, then the client leaves."""
    with socket.socket(socket.AF_UNIX) as client:
        client.settimeout(30)
        client.connect(sock_path)
        request = {"jsonrpc": "2.0", "id": 1, "method": "attach", "params": {"device": device}}
        client.sendall(json.dumps(request).encode() + b"\n")
        answer = b""
        while not answer.endswith(b"\n"):
            answer += client.recv(4096)
        if b'"attached":true' not in answer.replace(b" ", b""):
            sys.exit(f"link-order: attach answered {answer!r}")
        client.sendall(b"raw bytes\n")
        echoed = b""
        while not echoed.endswith(b"\n"):
            echoed += client.recv(4096)


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    bin_dir = os.path.abspath(sys.argv[1])
    output = sys.argv[sys.argv.index("--output") + 1] if "--output" in sys.argv else "packaging/accessoryd.order"
    work = tempfile.mkdtemp(prefix="accessoryd-link-order.")
    children = []
    try:
        children.append(start_simulators(bin_dir, os.path.join(work, "dev")))
        sock = os.path.join(work, "accessoryd.sock")
        config = os.path.join(work, "accessoryd.yaml")
        with open(config, "w") as f:
            f.write(f"socket:\n  path: {sock}\naccessories:\n")
            for i in range(16):
                f.write(f"  - name: echo{i}\n    path: {work}/dev{i}\n")
                # A view of each mode, so that their paths are among the functions placed.
                if i in VIEWS:
                    f.write(f"    views: [{{pty: view{i}, mode: {VIEWS[i]}}}]\n")
        run = os.path.join(work, "run")
        os.mkdir(run, 0o700)
        profile = os.path.join(work, "callgrind.out")
        # Debian 12's valgrind cannot read the DWARF 5 the toolchain writes; the symbol table is
        # all this needs.
        program = os.path.join(work, "accessoryd")
        subprocess.run(["objcopy", "--strip-debug", os.path.join(bin_dir, "accessoryd"), program], check=True)
        # The daemon reports READY=1 as under systemd, so that path is among the common part.
        notify_path = os.path.join(work, "notify")
        notify = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        notify.bind(notify_path)
        daemon = subprocess.Popen(
            ["valgrind", "--tool=callgrind", "--demangle=no", f"--callgrind-out-file={profile}",
             program, "--config", config, "--runtime-dir", run],
            stderr=subprocess.DEVNULL, env=dict(os.environ, NOTIFY_SOCKET=notify_path))
        children.append(daemon)
        ctl = [os.path.join(bin_dir, "accessoryctl"), "--socket", sock]

        def ctl_output(*arguments):
            return subprocess.run(ctl + list(arguments), capture_output=True, text=True, timeout=60).stdout

        def ctl_json(*arguments):
            return ctl_output("--json", *arguments).replace(" ", "")

        wait_for("16 ready accessories", 120, lambda: os.path.exists(sock) and ctl_output("list").count("ready") >= 16)
        ctl_output("status")
        ctl_output("status", "echo0")
        clients = [subprocess.Popen(ctl + ["transact", f"echo{i % 16}", "x" * 16], stdout=subprocess.DEVNULL)
                   for i in range(64)]
        failed = sum(1 for c in clients if c.wait(timeout=120) != 0)
        if failed:
            sys.exit(f"link-order: {failed} transacts failed")
        # The common part ends here: callgrind writes what ran so far to PROFILE.1.
        subprocess.run(["callgrind_control", "--dump=common", str(daemon.pid)], check=True,
                       stdout=subprocess.DEVNULL, timeout=60)
        monitor = subprocess.Popen(ctl + ["monitor", "echo1"], stdout=subprocess.DEVNULL)
        children.append(monitor)
        ctl_output("transact", "echo1", "seen by the monitor")
        ctl_output("lock", "echo2", "--", "transact hello", "status")
        monitor.terminate()
        monitor.wait(timeout=30)
        exchange_through_view(os.path.join(run, "tty", "view3"), b"through the shared view\n")
        exchange_through_view(os.path.join(run, "tty", "view4"), b"through the exclusive view\n")
        wait_for("the exclusive view's session to end", 120,
                 lambda: '"state":"ready"' in ctl_json("status", "echo4") and '"locked":true' not in ctl_json("status", "echo4"))
        attach_and_echo(sock, "echo6")
        daemon.send_signal(signal.SIGHUP)
        wait_for("the reload", 60, lambda: ctl_output("list").count("ready") >= 16)
        daemon.terminate()
        daemon.wait(timeout=120)
        notify.close()
        parts = sorted((p for p in os.listdir(work) if p.startswith("callgrind.out")),
                       key=lambda p: int(p.rsplit(".", 1)[1]) if p.rsplit(".", 1)[1].isdigit() else 1 << 30)
        names = executed_functions([os.path.join(work, p) for p in parts])
        with open(output, "w") as f:
            f.write("".join(name + "\n" for name in names))
        print(f"link-order: {len(names)} functions written to {output}")
    finally:
        for child in children:
            if child.poll() is None:
                child.kill()
                child.wait()
        subprocess.run(["rm", "-rf", work])


if __name__ == "__main__":
    main()
