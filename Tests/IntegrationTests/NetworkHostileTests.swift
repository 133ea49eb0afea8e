import AccessoryTestSupport
import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// Hostile telnet and TCP clients against the listeners: a 1 MB subnegotiation, a malformed one,
/// a flood of options it never reads the answers to, and a raw client that never reads what it
/// makes the device echo. Each is closed (a clean close or a reset) within a bound; meanwhile a
/// Unix-socket client keeps transacting on another accessory, a well-behaved TCP client is
/// served after each, and the daemon's peak memory stays bounded.
///
/// Threading: the test's thread owns its scenario and processes.
@Suite struct NetworkHostileTests {
    /// `hostile.py PORT CASE`: does CASE and prints how the connection ended.
    static let script = #"""
        import socket, sys, time
        port, case = int(sys.argv[1]), sys.argv[2]
        s = socket.create_connection(("127.0.0.1", port), timeout=20)
        IAC, SB, SE, DO = 255, 250, 240, 253
        if case == "sb1m":
            payload = bytes([IAC, SB, 44]) + b"A" * (1 << 20)
        elif case == "badsb":
            payload = bytes([IAC, SB, 44, 1, IAC, 65, 1, 2, 3])
        elif case == "flood":
            payload = bytes([IAC, DO, 99]) * 3_000_000
        elif case == "noread":
            payload = (b"x" * 1023 + b"\n") * 8192
        ended = "open"
        try:
            s.sendall(payload)
            deadline = time.monotonic() + 20
            s.settimeout(1)
            while time.monotonic() < deadline and case != "noread":
                try:
                    if not s.recv(65536):
                        ended = "closed"
                        break
                except socket.timeout:
                    pass
            if case == "noread":
                # Never read: wait for the daemon to give up on us.
                while time.monotonic() < deadline:
                    s.send(b"")
                    time.sleep(0.2)
                    try:
                        s.send(b"\n")
                    except (BrokenPipeError, ConnectionResetError):
                        ended = "closed"
                        break
        except (BrokenPipeError, ConnectionResetError):
            ended = "closed"
        print(ended)
        """#

    @Test func eachHostileClientIsClosedAndNobodyElseNotices() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.simulator("other")
        let telnet = try NetworkListenerTests.freePort()
        let raw = try NetworkListenerTests.freePort()
        try s.startDaemon(accessories: [
            s.lineAccessory(
                "echo",
                "network: [{listen: \"127.0.0.1:\(telnet)\", protocol: rfc2217}, "
                    + "{listen: \"127.0.0.1:\(raw)\", protocol: raw}]"
            ),
            s.lineAccessory("other"),
        ])
        let path = try s.directory.write("hostile.py", Self.script)
        let bystander = try s.connect()
        for (port, name) in [(telnet, "sb1m"), (telnet, "badsb"), (telnet, "flood"), (raw, "noread")] {
            let child = try ChildRun(
                label: "hostile \(name)",
                executable: "/usr/bin/python3",
                arguments: [path, "\(port)", name],
                stdoutPath: s.directory.file("\(name).out"),
                stderrPath: s.directory.file("\(name).err")
            )
            // Meanwhile the other accessory answers as ever.
            var answered = 0
            while child.isRunning && answered < 200 {
                if (try? bystander.call("transact", Params.transfer("other", "hi \(answered)")).frameTexts)
                    == ["hi \(answered)"]
                {
                    answered += 1
                } else {
                    break
                }
            }
            let ended = child.wait(seconds: 60)
            if ended == nil { child.kill() }
            #expect(ended == .exited(0), "\(name): \(child.stderr)")
            #expect(child.stdout.contains("closed"), "\(name) was closed: \(child.stdout) \(child.stderr)")
            #expect(answered > 0, "\(name): the other accessory kept answering")
            // A well-behaved client is served next.
            let good = try InetSocket.connect(to: InetEndpoint(address: [127, 0, 0, 1], port: raw))
            try NetworkListenerTests.echo(good.rawValue, "after \(name)\n")
            good.close()
        }
        let log = s.log
        #expect(log.contains("a telnet subnegotiation longer than 256 bytes"), "\(log)")
        #expect(log.contains("IAC 65 inside a telnet subnegotiation"), "\(log)")
        #expect(log.contains("read nothing while 1048576 bytes waited"), "\(log)")
        let peak = ProcFS.peakResidentKiB(s.daemon!.pid) ?? 0
        print("daemon peak RSS after the hostile clients: \(peak) KiB")
        #expect(peak < 64 << 10, "peak RSS \(peak) KiB")
    }
}
