import AccessoryTestSupport
import ControlProtocol
import Glibc
import JSONCodec
import SystemCalls
import Testing

/// An RFC 2217 connection across an unplug and a replug: it stays connected, what the client
/// writes while the accessory is absent is refused and counted, and when the accessory is back
/// the session starts again with the client's baud rate on the new line. Also `settings:
/// locked`: a baud rate asked for is answered with the configured one and never applied.
///
/// Threading: the test's thread owns its scenario and sockets.
@Suite struct NetworkReplugTests {
    static let iac: UInt8 = 255

    /// SET-BAUDRATE `rate` (after offering COM-PORT-OPTION).
    static func setBaud(_ rate: UInt32) -> [UInt8] {
        [iac, 251, 44, iac, 250, 44, 1] + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: rate >> $0) } + [iac, 240]
    }

    /// The server's answer to SET-BAUDRATE: code 101 and the rate.
    static func baudAnswer(_ rate: UInt32) -> [UInt8] {
        [iac, 250, 44, 101] + [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: rate >> $0) } + [iac, 240]
    }

    /// Reads until `wanted` has come (bounded); what came.
    static func read(_ fd: CInt, until wanted: [UInt8], seconds: Double = 10) throws -> [UInt8] {
        var got: [UInt8] = []
        let deadline = Deadline(seconds: seconds)
        while !deadline.hasPassed {
            if got.count >= wanted.count,
                (0...(got.count - wanted.count)).contains(where: {
                    Array(got[$0..<($0 + wanted.count)]) == wanted
                })
            {
                return got
            }
            guard try FileIO.waitReadable(fd, milliseconds: 100) else { continue }
            guard let bytes = try FileIO.read(fd, max: 4096) else { continue }
            if bytes.isEmpty { throw HarnessError("closed while waiting for \(wanted): \(got)") }
            got += bytes
        }
        throw HarnessError("no \(wanted) within \(seconds) s: \(got)")
    }

    /// The speed `stty` reads on `tty`.
    static func speed(_ tty: String, in s: Scenario) throws -> String {
        let child = try ChildRun(
            label: "stty",
            executable: ExternalProgram.locate("stty"),
            arguments: ["-F", tty, "speed"],
            stdoutPath: s.directory.file("stty.out"),
            stderrPath: s.directory.file("stty.err")
        )
        guard child.wait(seconds: 10) == .exited(0) else {
            child.kill()
            throw HarnessError("stty -F \(tty): \(child.stderr)")
        }
        return String(child.stdout.filter { !$0.isWhitespace })
    }

    @Test func theConnectionOutlivesAReplugAndTheLineGetsItsSettingsAgain() throws {
        let s = try Scenario()
        defer { s.finish() }
        // Answers 4 lines, hangs up on the next, reappears on a new pty 500 ms later.
        let link = try s.simulator(
            "echo",
            ["--personality", "echo", "--hangup-after", "4", "--reappear-after-ms", "500"]
        )
        let port = try NetworkListenerTests.freePort()
        try s.startDaemon(accessories: [
            s.lineAccessory(
                "echo",
                "reconnect: {initial_ms: 20, max_ms: 100}, network: [{listen: \"127.0.0.1:\(port)\"}]"
            )
        ])
        let fd = try InetSocket.connect(to: InetEndpoint(address: [127, 0, 0, 1], port: port))
        _ = try FileIO.write(fd.rawValue, Self.setBaud(9600))
        _ = try Self.read(fd.rawValue, until: Self.baudAnswer(9600))
        #expect(try Self.speed(link, in: s) == "9600")
        for line in ["a\n", "b\n", "c\n", "d\n"] {
            _ = try FileIO.write(fd.rawValue, Array(line.utf8))
            _ = try Self.read(fd.rawValue, until: Array(line.utf8))
        }
        _ = try FileIO.write(fd.rawValue, Array("hangs up\n".utf8))
        let client = try s.connect()
        func connection() -> JSONValue? {
            let status = try? client.result("device.status", Params.device("echo"))
            return status?["listeners"]?.arrayValue?.first?["connections"]?.arrayValue?.first
        }
        #expect(Wait.until(seconds: 10) { connection()?["session"]?.stringValue == "detached" }, "\(s.log)")
        _ = try FileIO.write(fd.rawValue, Array("lost\n".utf8))
        // Back: attached again (a second session on the same connection), at 9600 on the new pty.
        #expect(
            Wait.until(seconds: 15) {
                connection()?["session"]?.stringValue == "attached"
                    && connection()?["counters"]?["sessions"]?.int64Value == 2
            },
            "\(s.log)"
        )
        #expect(connection()?["counters"]?["refused_bytes"]?.int64Value == 5, "\(String(describing: connection()))")
        #expect(try Self.speed(link, in: s) == "9600", "the client's rate, applied again")
        _ = try FileIO.write(fd.rawValue, Array("back\n".utf8))
        _ = try Self.read(fd.rawValue, until: Array("back\n".utf8))
        fd.close()
        // Closed: the configured rate again.
        #expect(Wait.until(seconds: 10) { (try? Self.speed(link, in: s)) == "115200" })
    }

    @Test func lockedSettingsAreAnsweredWithTheConfiguredOnes() throws {
        let s = try Scenario()
        defer { s.finish() }
        let link = try s.simulator("echo")
        let port = try NetworkListenerTests.freePort()
        try s.startDaemon(accessories: [
            s.lineAccessory("echo", "network: [{listen: \"127.0.0.1:\(port)\", settings: locked}]")
        ])
        let fd = try InetSocket.connect(to: InetEndpoint(address: [127, 0, 0, 1], port: port))
        _ = try FileIO.write(fd.rawValue, Self.setBaud(9600))
        _ = try Self.read(fd.rawValue, until: Self.baudAnswer(115_200))
        #expect(try Self.speed(link, in: s) == "115200")
        fd.close()
    }

    /// `limits.attach_idle_ms` ends an idle session (the connection is closed); the line gets its
    /// configured settings back although the accessory, not the client, ended the session.
    @Test func anIdleSessionEndsAndTheLineIsPutBack() throws {
        let s = try Scenario()
        defer { s.finish() }
        let link = try s.simulator("echo")
        let port = try NetworkListenerTests.freePort()
        try s.startDaemon(
            limits: [("attach_idle_ms", 500)],
            accessories: [s.lineAccessory("echo", "network: [{listen: \"127.0.0.1:\(port)\"}]")]
        )
        let fd = try InetSocket.connect(to: InetEndpoint(address: [127, 0, 0, 1], port: port))
        _ = try FileIO.write(fd.rawValue, Self.setBaud(9600))
        _ = try Self.read(fd.rawValue, until: Self.baudAnswer(9600))
        #expect(try Self.speed(link, in: s) == "9600")
        let said = try NetworkListenerTests.readUntilClosed(fd.rawValue, seconds: 10)
        #expect(!said.contains("device.detached"), "no JSON notice in a telnet stream: \(said)")
        #expect(s.log.contains("attach_idle_ms"), "\(s.log)")
        #expect(try Self.speed(link, in: s) == "115200", "\(s.log)")
        fd.close()
    }
}
