import AccessoryTestSupport
import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// gpsd (Debian's, a program nobody here wrote) reading the simulated NMEA receiver through a
/// `monitor` view, while another client runs requests on the same receiver; then the receiver is
/// unplugged and replugged under gpsd's feet.
///
/// Threading: each test runs on its own test thread and owns its scenario, its gpsd and gpspipe.
@Suite struct GPSDViewTests {
    /// The receiver: a fix every 100 ms, MediaTek commands answered; SIGUSR1 unplugs it and it
    /// comes back on a new pty 300 ms later.
    static let receiver = ["--personality", "nmea", "--unsolicited-ms", "100", "--reappear-after-ms", "300"]

    /// `$PMTK<command>*CS`: a MediaTek command (three digits) with its checksum.
    static func command(_ number: Int) -> String { sentence("PMTK\(number)") }

    /// `$<body>*CS`, the checksum being the XOR of the body's bytes in two hex digits.
    static func sentence(_ body: String) -> String {
        let sum = body.utf8.reduce(UInt8(0), ^)
        let digits = Array("0123456789ABCDEF")
        return "$\(body)*" + String([digits[Int(sum >> 4)], digits[Int(sum & 0xF)]])
    }

    /// Runs MediaTek commands on the receiver from a socket client, one a call, and counts the
    /// answers: each must acknowledge its own command.
    ///
    /// Threading: the test's thread.
    final class CommandClient {
        let client: RPCClient
        private(set) var answered = 0
        private(set) var wrong: [String] = []

        init(_ client: RPCClient) { self.client = client }

        func runOne() throws {
            // A different command number each time (100…899): an answer to another request shows.
            let number = 100 + (answered + wrong.count) % 800
            let response = try client.call("transact", Params.transfer("gps", GPSDViewTests.command(number)))
            let expected = GPSDViewTests.sentence("PMTK001,\(number),3")
            if response.frameTexts == [expected] {
                answered += 1
            } else {
                wrong.append(
                    "\(GPSDViewTests.command(number)) → \(response.result.map { "\($0)" } ?? response.error.map { "\($0)" } ?? "")"
                )
            }
        }
    }

    /// The harness on its own: gpsd opens the simulator's pty itself (no daemon, no view) and
    /// gpspipe reports the simulator's position. If this fails, the programs or the simulator
    /// are at fault, not the views.
    @Test func gpsdReportsTheSimulatorsPositionFromItsOwnPty() throws {
        let s = try Scenario()
        defer { s.finish() }
        let link = try s.simulator("gps", Self.receiver)
        let gpsd = try GPSDRun(device: link, in: s.directory)
        defer { gpsd.finish() }
        let fixes = try gpsd.waitForFixes(moreThan: 2, seconds: 20)
        #expect(fixes.filter { !$0.isSimulatorPosition }.isEmpty, "\(fixes)")
    }

    @Test func gpsdReadsAMonitorViewWhileAnotherClientsRequestsAreAnsweredAndKeepsItAcrossAReplug() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("gps", Self.receiver)
        try s.startDaemon(accessories: [
            s.lineAccessory(
                "gps",
                framing: #"{type: line, delimiter: "\r\n", terminator: "\r\n"}"#,
                #"unsolicited: ['^\$GP'], views: [{pty: gps, mode: monitor}]"#
            )
        ])
        let view = s.runtimeDirectory + "/tty/gps"
        let terminal = try FileIO.readLink(view)
        let gpsd = try GPSDRun(device: view, in: s.directory)
        defer { gpsd.finish() }
        let requests = CommandClient(try s.connect())
        defer { requests.client.close() }

        // Fixes while requests run: gpsd reads the receiver's sentences, the client its answers.
        let fixes = try gpsd.waitForFixes(moreThan: 5, seconds: 20, while: requests.runOne)
        #expect(fixes.filter { !$0.isSimulatorPosition }.isEmpty, "\(fixes)")
        while requests.answered + requests.wrong.count < 20 { try requests.runOne() }
        #expect(requests.wrong.isEmpty, "\(requests.wrong)")
        #expect(gpsd.openTerminals.contains(terminal), "gpsd holds \(gpsd.openTerminals), the view is \(terminal)")

        // Unplugged and back: the view stays, gpsd is not restarted and reports fixes again.
        let watcher = try s.connect()
        defer { watcher.close() }
        _ = try watcher.result("subscribe", ["device": "gps", "events": ["state"]])
        let simulator = try #require(s.simulator(named: "gps"))
        try ChildProcess.signal(simulator.child.pid, SIGUSR1)
        _ = try waitForState(watcher, "gps", "absent")
        _ = try waitForState(watcher, "gps", "ready")
        let before = gpsd.fixes.count
        let after = try gpsd.waitForFixes(moreThan: before + 2, seconds: 20, while: requests.runOne)
        let replugged = Array(after.dropFirst(before))
        #expect(replugged.filter { !$0.isSimulatorPosition }.isEmpty, "\(replugged)")
        #expect(gpsd.gpsd.isRunning)
        let terminalAfter = try FileIO.readLink(view)
        #expect(terminalAfter == terminal, "the view's pty was replaced")
        #expect(gpsd.openTerminals.contains(terminal), "gpsd holds \(gpsd.openTerminals), the view is \(terminal)")
        #expect(requests.wrong.isEmpty, "\(requests.wrong)")
    }
}
