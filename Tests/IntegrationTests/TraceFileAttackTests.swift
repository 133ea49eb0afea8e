import Glibc
import SystemCalls
import Testing

/// A trace file another local user made first, against the built daemon: a 0666 file of theirs
/// at the trace's name, in a folder open to all (sticky, as `/tmp`). The daemon refuses it with
/// an error in the log and in `last_error`, writes nothing to it, and serves the accessory on.
///
/// Threading: the test's thread; it owns the scenario's processes.
@Suite struct TraceFileAttackTests {
    static let attacker: UInt32 = 65533

    @Test(.enabled(if: getuid() == 0, "planting a file as another uid needs root"))
    func anotherUsersTraceFileIsRefusedAndTheAccessoryServesOn() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        let shared = s.directory.file("shared")
        try #require(mkdir(shared, 0o700) == 0 && chmod(shared, 0o1777) == 0)
        let file = shared + "/echo.trace"
        try FileIO.writeFile(file, "", mode: 0o666)
        try #require(chown(file, Self.attacker, Self.attacker) == 0 && chmod(file, 0o666) == 0)

        try s.startDaemon(accessories: [s.lineAccessory("echo", "trace: {file: \(file), format: text}")])
        let client = try s.connect()
        let id = try client.send("transact", Params.transfer("echo", "secret"))
        #expect(try client.response(to: id).frameTexts == ["secret"], "the accessory serves without the trace")
        let status = try client.result("device.status", Params.device("echo"))
        client.close()
        let lastError = status["last_error"]?.stringValue ?? ""
        #expect(lastError.contains("belongs to uid \(Self.attacker)"), "\(status)")
        _ = s.stopDaemon()
        #expect(
            s.log.contains("echo: not tracing: cannot use trace file \(file): it belongs to uid \(Self.attacker)"),
            "\(s.log)"
        )
        #expect(TemporaryDirectory.contents(of: file).isEmpty, "the other user's file received the traffic")
    }
}
