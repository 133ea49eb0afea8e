import Glibc

/// Hostile local users for the limit tests: a Python child run as another uid (through
/// `setpriv`) that opens connections to the daemon and misbehaves on each, never reading a
/// byte of what the daemon answers. It prints `ready` once every connection has done its part,
/// then holds them open until it is stopped (or `seconds` pass).
///
/// Modes: `discover-batch` sends one line holding a batch of `calls` `rpc.discover` calls (about
/// 52 KB for 1,024: each answer is the whole OpenRPC document); `idle` sends nothing at all;
/// `partial` sends the start of a request line and never its end; `request` sends one complete
/// `daemon.status` line; `transact-batch` sends a batch of `calls` `transact`s to accessory
/// `echo` that would wait for its lock (`wait_ms`); `flood` pipelines single `rpc.discover`
/// lines on one connection after another (each is dropped as a slow reader, or stalls, and the
/// next is opened) until the time is up, and prints how many it opened at the end.
///
/// Threading: the test's thread (it owns the child).
enum HostileClients {
    static let script = """
        import socket, sys, time
        path, mode, count, calls, seconds = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
        def line():
            if mode == "discover-batch":
                body = ",".join('{"jsonrpc":"2.0","id":%d,"method":"rpc.discover"}' % i for i in range(calls))
                return ("[" + body + "]\\n").encode()
            if mode == "transact-batch":
                one = '{"jsonrpc":"2.0","id":%d,"method":"transact","params":{"device":"echo","data":"x","wait_ms":60000}}'
                return ("[" + ",".join(one % i for i in range(calls)) + "]\\n").encode()
            if mode == "partial":
                return b'{"jsonrpc":"2.0","id":1,"method":"daemon.st'
            if mode == "request":
                return b'{"jsonrpc":"2.0","id":1,"method":"daemon.status"}\\n'
            return b""
        def flood(end):
            opened, line = 0, b'{"jsonrpc":"2.0","id":1,"method":"rpc.discover"}\\n' * 64
            while time.monotonic() < end:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.settimeout(1)
                try:
                    s.connect(path)
                    opened += 1
                    while time.monotonic() < end:
                        s.sendall(line)
                except OSError:
                    pass
                s.close()
            return opened
        if mode == "flood":
            sys.stdout.write("ready 1 0\\n")
            sys.stdout.flush()
            sys.stdout.write("opened %d\\n" % flood(time.monotonic() + seconds))
            sys.exit(0)
        held, refused = [], 0
        data = line()
        for _ in range(count):
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(10)
            try:
                s.connect(path)
                if data:
                    s.sendall(data)
                held.append(s)
            except OSError:
                refused += 1
        sys.stdout.write("ready %d %d\\n" % (len(held), refused))
        sys.stdout.flush()
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            time.sleep(0.1)
        """

    /// Starts the child as `uid` (its primary group the same number) with `count` connections
    /// doing `mode`; it holds them for at most `seconds`.
    static func start(
        _ s: Scenario,
        uid: UInt32,
        mode: String,
        count: Int,
        calls: Int = 0,
        seconds: Int = 120,
        label: String
    ) throws -> ChildRun {
        try ChildRun(
            label: label,
            executable: PermissionTests.setpriv,
            arguments: [
                "--reuid=\(uid)", "--regid=\(uid)", "--clear-groups", PermissionTests.python, "-c", script,
                s.socketPath, mode, "\(count)", "\(calls)", "\(seconds)",
            ],
            stdoutPath: s.directory.file("\(label).out"),
            stderrPath: s.directory.file("\(label).err")
        )
    }

    /// Waits (bounded) for the child's `ready` line; returns the connections it holds and the
    /// ones the daemon refused, or nil if it did not get there.
    static func waitUntilReady(_ child: ChildRun, seconds: Double = 60) -> (held: Int, refused: Int)? {
        let deadline = Deadline(seconds: seconds)
        while !deadline.hasPassed {
            let words = child.stdout.split(whereSeparator: { $0 == " " || $0 == "\n" })
            if words.count >= 3, words[0] == "ready", let held = Int(words[1]), let refused = Int(words[2]) {
                return (held, refused)
            }
            if !child.isRunning { return nil }
            usleep(10_000)
        }
        return nil
    }
}
