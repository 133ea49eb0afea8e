import Glibc
import JSONCodec
import SystemCalls
import Testing

@testable import ControlProtocol

/// `accessoryd` with no configuration file: its embedded default starts four simulated
/// accessories (echo, an AT modem, a GPS, a SLIP device) with the socket in the runtime
/// directory, and each answers real transactions.
///
/// Threading: the test's thread; it owns the daemon (which owns its simulators).
@Suite struct EmbeddedDefaultTests {
    @Test func noConfigurationFileRunsTheFourSimulatedAccessories() throws {
        let s = try Scenario()
        defer { s.finish() }
        // Without --config the daemon reads /etc/accessoryd/accessoryd.yaml if there is one; this
        // machine's file must not change the test, so --embedded-default is added only then.
        let systemFile = access("/etc/accessoryd/accessoryd.yaml", F_OK) == 0
        if systemFile { print("/etc/accessoryd/accessoryd.yaml exists: running with --embedded-default") }
        let run = try DaemonRun(
            configPath: nil,
            socketPath: s.directory.file("accessoryd.sock"),
            in: s.directory,
            extraArguments: systemFile ? ["--embedded-default"] : []
        )
        s.adopt(run)
        try s.waitUntilReady(["echo", "modem", "gps", "slip"])
        #expect(run.log.contains("serving 4 accessories"), "\(run.log)")
        #expect(run.log.contains("(config: <embedded default>)"), "\(run.log)")

        let client = try s.connect()
        defer { client.close() }
        let names = try client.result("devices.list")["devices"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(names == ["echo", "modem", "gps", "slip"])

        #expect(
            try client.call("transact", Params.transfer("echo", "hello, accessory")).frameTexts == ["hello, accessory"]
        )

        let identity = try #require(try client.call("transact", Params.transfer("modem", "ATI")).frameTexts)
        #expect(identity.last == "OK", "\(identity)")
        #expect(identity.count >= 2)
        #expect(try client.call("transact", Params.transfer("modem", "AT+CSQ")).frameTexts == ["+CSQ: 23,99", "OK"])

        let fixes = try #require(
            try client.call("read", ["device": "gps", "max_frames": 2, "timeout_ms": 5000], seconds: 10).frameTexts
        )
        #expect(fixes.count == 2)
        #expect(fixes.allSatisfy { $0.hasPrefix("$GP") }, "\(fixes)")

        let payload: [UInt8] = [0x01, 0xC0, 0xDB, 0x02]
        let slip = try client.call(
            "transact",
            ["device": "slip", "data_base64": .string(Base64.encodedString(payload))]
        )
        #expect(slip.result?["frames"]?.arrayValue?.first?["data_base64"]?.stringValue == Base64.encodedString(payload))
    }

    @Test func embeddedDefaultAndConfigExcludeEachOther() throws {
        let s = try Scenario()
        defer { s.finish() }
        let config = try s.directory.write("accessoryd.yaml", s.configuration(accessories: []))
        let run = try DaemonRun(
            configPath: config,
            socketPath: s.socketPath,
            in: s.directory,
            waitForSocket: false,
            extraArguments: ["--embedded-default"]
        )
        let ended = run.child.wait(seconds: 15)
        if ended == nil { run.child.kill() }
        #expect(ended != nil && ended != .exited(0), "\(String(describing: ended))")
        #expect(run.log.contains("--embedded-default and --config exclude each other"), "\(run.log)")
    }
}
