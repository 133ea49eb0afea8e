import AccessoryTestSupport
import ControlProtocol
import Glibc
import JSONCodec
import SystemCalls
import Testing

/// The network listeners end to end, with pyserial (Debian's `python3-serial`, code nobody here
/// wrote) as the client: `rfc2217://` and `socket://` to a simulated echo accessory, the line's
/// settings seen in the pty's termios and restored after, 1,000 lines through, a second client
/// refused, and a uid that `access:` does not name refused on TCP as on the Unix socket.
///
/// Threading: each test runs on its own test thread and owns its scenario and its processes.
@Suite struct NetworkListenerTests {
    static let missing: String? = {
        guard access("/usr/bin/python3", X_OK) == 0 else { return "/usr/bin/python3 is not installed" }
        return nil
    }()

    /// `script.py URL DEVICE LINES`: opens URL, checks the device's termios after a baud change
    /// (rfc2217 only), echoes LINES numbered lines, closes, and prints one JSON line.
    static let script = #"""
        import json, os, sys, termios, time
        import serial

        url, device, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
        report = {}
        def speed():
            fd = os.open(device, os.O_RDONLY | os.O_NOCTTY | os.O_NONBLOCK)
            try:
                return termios.tcgetattr(fd)[4]
            finally:
                os.close(fd)
        port = serial.serial_for_url(url, baudrate=115200, timeout=10)
        if url.startswith("rfc2217"):
            report["before"] = speed() == termios.B115200
            port.baudrate = 9600
            report["changed"] = speed() == termios.B9600
            t = time.monotonic()
            port.reset_input_buffer()
            report["purge_ms"] = int((time.monotonic() - t) * 1000)
            report["cts"] = bool(port.cts)
            report["dsr"] = bool(port.dsr)
        right, wrong = 0, []
        for i in range(count):
            line = ("line %05d " % i) + "x" * (i % 40) + "\n"
            port.write(line.encode())
            got = port.readline().decode(errors="replace")
            if got == line:
                right += 1
            elif len(wrong) < 5:
                wrong.append([line, got])
        port.close()
        time.sleep(0.3)
        if url.startswith("rfc2217"):
            report["restored"] = speed() == termios.B115200
        report["right"] = right
        report["wrong"] = wrong
        print(json.dumps(report))
        """#

    /// A port the kernel had free a moment ago.
    static func freePort() throws -> UInt16 {
        let fd = try InetSocket.listening(on: InetEndpoint(address: [127, 0, 0, 1], port: 0))
        return try InetSocket.localEnd(fd.rawValue).port
    }

    static func run(_ arguments: [String], in s: Scenario, as name: String, seconds: Double = 60) throws -> JSONValue {
        let path = try s.directory.write("net_script.py", script)
        let child = try ChildRun(
            label: "python3 (pyserial \(name))",
            executable: "/usr/bin/python3",
            arguments: [path] + arguments,
            stdoutPath: s.directory.file("\(name).out"),
            stderrPath: s.directory.file("\(name).err")
        )
        guard let ended = child.wait(seconds: seconds) else {
            child.kill()
            throw HarnessError("pyserial did not finish in \(seconds) s: \(child.stdout) \(child.stderr)")
        }
        let line = child.stdout.split(separator: "\n").last.map(String.init) ?? ""
        guard ended == .exited(0), let report = try? JSONParser.parse(Array(line.utf8)) else {
            throw HarnessError("pyserial ended (\(ended)) without its report: \(child.stdout) \(child.stderr)")
        }
        return report
    }

    func echoDaemon(_ s: Scenario, port: UInt16, protocolName: String, extra: String = "") throws -> String {
        let link = try s.simulator("echo")
        try s.startDaemon(accessories: [
            s.lineAccessory(
                "echo",
                "network: [{listen: \"127.0.0.1:\(port)\", protocol: \(protocolName)}]" + extra
            )
        ])
        return link
    }

    @Test(.enabled(if: missing == nil, "\(missing ?? "")"))
    func pyserialThroughRFC2217() throws {
        let s = try Scenario()
        defer { s.finish() }
        let port = try Self.freePort()
        let link = try echoDaemon(s, port: port, protocolName: "rfc2217")
        let report = try Self.run(["rfc2217://127.0.0.1:\(port)", link, "1000"], in: s, as: "rfc2217")
        #expect(report["before"]?.boolValue == true, "\(report)")
        #expect(report["changed"]?.boolValue == true, "the baud rate reached the pty: \(report)")
        #expect(report["restored"]?.boolValue == true, "the configured rate is back after close: \(report)")
        #expect((report["purge_ms"]?.intValue ?? 9_999) < 1_000, "reset_input_buffer returns at once: \(report)")
        #expect(report["right"]?.intValue == 1000, "\(report)")
        #expect(report["wrong"]?.arrayValue?.isEmpty == true, "\(report)")
        print("pyserial rfc2217: \(report)")
    }

    @Test(.enabled(if: missing == nil, "\(missing ?? "")"))
    func pyserialThroughRawSocket() throws {
        let s = try Scenario()
        defer { s.finish() }
        let port = try Self.freePort()
        let link = try echoDaemon(s, port: port, protocolName: "raw")
        let report = try Self.run(["socket://127.0.0.1:\(port)", link, "1000"], in: s, as: "socket")
        #expect(report["right"]?.intValue == 1000, "\(report)")
    }

    @Test
    func aSecondClientIsRefusedAtOnceAndTheFirstGoesOn() throws {
        let s = try Scenario()
        defer { s.finish() }
        let port = try Self.freePort()
        _ = try echoDaemon(s, port: port, protocolName: "raw")
        let endpoint = InetEndpoint(address: [127, 0, 0, 1], port: port)
        let first = try InetSocket.connect(to: endpoint)
        // The first holds the session once the daemon has answered its attach: its echo says so.
        try Self.echo(first.rawValue, "hello\n")
        let second = try InetSocket.connect(to: endpoint)
        let said = try Self.readUntilClosed(second.rawValue, seconds: 5)
        #expect(said.contains("accessoryd: cannot attach to echo: echo is locked by client"), "\(said)")
        try Self.echo(first.rawValue, "still here\n")
        let status = try s.connect().result("device.status", Params.device("echo"))
        let listener = status["listeners"]?.arrayValue?.first
        #expect(listener?["counters"]?["accepted"]?.intValue == 2, "\(status)")
        #expect(listener?["connections"]?.arrayValue?.count == 1, "the refused one is gone: \(status)")
        // accessoryctl listeners: the table, and --json with each listener's status and its device.
        let table = try ViewDaemonTests.ctl(s, ["listeners"])
        let rows = table.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true) }
        #expect(rows.first?.first == "DEVICE" && rows.first?.contains("SESSION") == true, "\(table)")
        #expect(
            rows.contains {
                $0.count == 10 && $0[1] == "127.0.0.1:\(port)" && $0[2] == "raw/follow" && $0[6] == "attached"
            },
            "\(table)"
        )
        let json = try JSONParser.parse(Array(try ViewDaemonTests.ctl(s, ["listeners", "--json"]).utf8))
        #expect(json["listeners"]?.arrayValue?.first?["device"]?.stringValue == "echo", "\(json)")
        let clients = try s.connect().call("clients.list").result?["clients"]?.arrayValue ?? []
        #expect(
            clients.contains { ($0["command"]?.stringValue ?? "").hasPrefix("raw 127.0.0.1:\(port)") },
            "\(clients)"
        )
    }

    @Test(.enabled(if: getuid() == 0, "needs root (setpriv to another uid)"))
    func aUidThatAccessDoesNotNameIsRefusedOnTCP() throws {
        let s = try Scenario()
        defer { s.finish() }
        let port = try Self.freePort()
        _ = try echoDaemon(s, port: port, protocolName: "raw", extra: ", access: {users: [0]}")
        let probe = #"""
            import socket, sys
            s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=5)
            try:
                s.sendall(b"ping\n")
            except ConnectionResetError:
                pass
            data = b""
            try:
                while True:
                    chunk = s.recv(100)
                    if not chunk:
                        break
                    data += chunk
            except socket.timeout:
                print("timeout")
            except ConnectionResetError:
                # Closed by the daemon with "ping" unread: the kernel resets rather than ends.
                pass
            print(repr(data))
            """#
        let path = try s.directory.write("probe.py", probe)
        _ = chmod(path, 0o644)
        _ = chmod(s.directory.path, 0o755)
        let child = try ChildRun(
            label: "tcp client as uid 65534",
            executable: PermissionTests.setpriv,
            arguments: ["--reuid=65534", "--regid=65534", "--clear-groups", PermissionTests.python, path, "\(port)"],
            stdoutPath: s.directory.file("nobody.out"),
            stderrPath: s.directory.file("nobody.err")
        )
        let ended = child.wait(seconds: 20)
        if ended == nil { child.kill() }
        #expect(ended == .exited(0), "\(child.stderr)")
        #expect(child.stdout.contains("b''"), "closed without a byte of the device's: \(child.stdout)")
        #expect(s.log.contains("uid 65534 may not use echo"), "refusal logged")
        // Root, whom the rule names, is served.
        let mine = try InetSocket.connect(to: InetEndpoint(address: [127, 0, 0, 1], port: port))
        try Self.echo(mine.rawValue, "root\n")
    }

    // MARK: - Helpers

    /// Writes `line` and reads until it comes back (bounded).
    static func echo(_ fd: CInt, _ line: String) throws {
        _ = try FileIO.write(fd, Array(line.utf8))
        var got: [UInt8] = []
        let deadline = Deadline(seconds: 10)
        while !got.ends(with: Array(line.utf8)) && !deadline.hasPassed {
            guard try FileIO.waitReadable(fd, milliseconds: 200) else { continue }
            guard let bytes = try FileIO.read(fd, max: 4096) else { continue }
            if bytes.isEmpty { throw HarnessError("closed while waiting for the echo of \(line)") }
            got += bytes
        }
        if !got.ends(with: Array(line.utf8)) { throw HarnessError("no echo of \(line): \(got)") }
    }

    /// What the peer sends until it closes (bounded).
    static func readUntilClosed(_ fd: CInt, seconds: Double) throws -> String {
        var got: [UInt8] = []
        let deadline = Deadline(seconds: seconds)
        while !deadline.hasPassed {
            guard try FileIO.waitReadable(fd, milliseconds: 200) else { continue }
            guard let bytes = try FileIO.read(fd, max: 4096) else { continue }
            if bytes.isEmpty { break }
            got += bytes
        }
        return String(decoding: got, as: UTF8.self)
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
