import AccessorySimulator
import AccessoryTestSupport
import ControlProtocol
import Glibc
import SystemCalls
import Testing

@testable import AccessoryCore

/// pyserial (Debian's `python3-serial`) through `rfc2217://` to an in-process daemon whose
/// accessory is a pty: DTR, RTS and BREAK reach the line, and CTS and DSR are read from it. A pty
/// has no modem lines, so the system-call seam answers and records the line ioctls on the
/// accessory's descriptor (``LineControlRecorder``), as the `control` tests do.
///
/// Threading: the test's thread; the registry runs on its own loop thread (``CoreHarness``).
@Suite struct NetworkLineControlTests {
    static let script = #"""
        import json, sys, time
        import serial

        port = serial.serial_for_url(sys.argv[1], baudrate=115200, timeout=5)
        report = {"cts": bool(port.cts), "dsr": bool(port.dsr), "ri": bool(port.ri)}
        port.dtr = False
        port.rts = False
        port.dtr = True
        port.send_break(0.05)
        port.close()
        print(json.dumps(report))
        """#

    @Test(.enabled(if: access("/usr/bin/python3", X_OK) == 0, "needs /usr/bin/python3"))
    func dtrRtsAndBreakReachTheLineAndCtsDsrAreRead() throws {
        let probe = try InetSocket.listening(on: InetEndpoint(address: [127, 0, 0, 1], port: 0))
        let port = try InetSocket.localEnd(probe.rawValue).port
        probe.close()
        let yaml = """
            accessories:
              - name: echo
                path: {sim:echo}
                framing: {type: line, delimiter: "\\n"}
                network: [{listen: "127.0.0.1:\(port)", protocol: rfc2217}]
            """
        let h = try CoreHarness(sims: ["echo": SimulatorConfiguration(name: "echo")], yaml: yaml)
        #expect(h.waitReady("echo"))
        let registry = h.registry
        // Made on the device loop: only that thread's calls on the accessory's descriptor count.
        let inputs = Termios.ModemLines.cts.rawValue | Termios.ModemLines.dsr.rawValue
        let recorder = try #require(
            Wait.onLoop(h.loop) { () -> LineControlRecorder? in
                guard let fd = registry.accessory(named: "echo")?.port?.channel.fileDescriptor else { return nil }
                return LineControlRecorder(fd: fd, clock: EmbeddedLoop(), inputs: inputs)
            } ?? nil
        )
        defer { recorder.remove() }
        let path = h.dir + "/lines.py"
        try FileIO.replace(path, with: Array(Self.script.utf8), mode: 0o644)
        let out = h.dir + "/lines.out"
        let output = try FileIO.open(out, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)
        let pid = try ChildProcess.launch(
            "/usr/bin/python3",
            arguments: [path, "rfc2217://127.0.0.1:\(port)"],
            standardOutput: output.rawValue,
            standardError: output.rawValue
        )
        output.close()
        var ended: ChildProcess.Termination?
        Wait.until(seconds: 30) {
            ended = try? ChildProcess.wait(pid, block: false)
            return ended != nil
        }
        if ended == nil {
            try? ChildProcess.signal(pid, SIGKILL)
            _ = try? ChildProcess.wait(pid, block: true)
        }
        let said = String(decoding: (try? FileIO.readFile(out, limit: 1 << 16)) ?? [], as: UTF8.self)
        #expect(ended == .exited(0), "\(said)")
        #expect(said.contains(#""cts": true, "dsr": true, "ri": false"#), "\(said)")
        // The changes, in order (TIOCMGET polls left out): open asserts DTR and RTS, then DTR
        // off, RTS off, DTR on, and the break's start and end.
        let changes = recorder.calls.map(\.name).filter { $0 != .tiocmget }
        #expect(Array(changes.suffix(5)) == [.tiocmbic, .tiocmbic, .tiocmbis, .tiocsbrk, .tioccbrk], "\(changes)")
        #expect(changes.prefix(2) == [.tiocmbis, .tiocmbis], "DTR and RTS asserted at open: \(changes)")
    }
}
