import AccessoryTestSupport
import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// picocom (Debian's, a terminal program nobody here wrote) in a tmux pane opens an `exclusive`
/// view of a byte-echoing accessory, typed at as a person would: the keys reach the accessory
/// and come back; while picocom holds the accessory, another client's request waits; once
/// picocom quits, that request is served.
///
/// Threading: each test runs on its own test thread and owns its scenario, its tmux server and
/// the processes in it.
@Suite struct PicocomViewTests {
    static let missing = TmuxPane.missing ?? ExternalProgram.missing("picocom")

    /// Starts picocom on `port` in the pane and waits for its banner's last line.
    static func startPicocom(_ pane: TmuxPane, _ port: String) throws {
        try pane.command("picocom --baud 115200 '\(port)'")
        let ready = pane.waitFor { $0.contains("Terminal ready") }
        try #require(ready != nil, "picocom did not start:\n\(pane.screen)")
    }

    /// Quits picocom (C-a C-x) and waits (bounded) until it has ended.
    static func quitPicocom(_ pane: TmuxPane) throws {
        try pane.press("C-a")
        try pane.press("C-x")
        let deadline = Deadline(seconds: 10)
        while pane.foregroundChild != nil && !deadline.hasPassed { usleep(20_000) }
        try #require(pane.foregroundChild == nil, "picocom still running:\n\(pane.screen)")
    }

    /// The harness on its own: picocom on the accessory's own pty (no daemon) shows the echo.
    @Test(.enabled(if: missing == nil, "\(missing ?? "")"))
    func picocomShowsTheEchoOfTypedKeysOnTheAccessorysOwnPty() throws {
        let s = try Scenario()
        defer { s.finish() }
        let link = try s.simulator("echo", ["--personality", "echo", "--terminator", "none"])
        let pane = try TmuxPane(in: s.directory)
        defer { pane.finish() }
        try Self.startPicocom(pane, link)
        // picocom does not echo locally: what the screen shows came back from the accessory.
        try pane.type("typed-through-picocom")
        #expect(pane.waitFor { $0.contains("typed-through-picocom") } != nil, "\(pane.screen)")
        try Self.quitPicocom(pane)
    }

    @Test(.enabled(if: missing == nil, "\(missing ?? "")"))
    func picocomHoldsAnExclusiveViewAndAnotherClientsRequestWaitsUntilItQuits() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo", ["--personality", "echo", "--terminator", "none"])
        try s.startDaemon(accessories: [s.lineAccessory("echo", "views: [{pty: console, mode: exclusive}]")])
        let pane = try TmuxPane(in: s.directory)
        defer { pane.finish() }
        let client = try s.connect()
        defer { client.close() }
        // Free before picocom writes: a request is answered at once.
        #expect(try client.call("transact", Params.transfer("echo", "before")).frameTexts == ["before"])

        try Self.startPicocom(pane, s.runtimeDirectory + "/tty/console")
        try pane.type("typed-through-picocom")
        #expect(pane.waitFor { $0.contains("typed-through-picocom") } != nil, "\(pane.screen)")

        // picocom's first write took the accessory: another client's request waits for it.
        let waiting = try client.send("transact", Params.transfer("echo", "queued", waitMs: 20_000))
        let early = try client.messages(during: 1.5).compactMap { message -> Response? in
            if case .response(let response) = message { return response }
            return nil
        }
        #expect(early.isEmpty, "answered while picocom held the accessory: \(early)")
        // Still picocom's: more keys still come back.
        try pane.type("+and-more")
        #expect(pane.waitFor { $0.contains("typed-through-picocom+and-more") } != nil, "\(pane.screen)")

        let stopwatch = Stopwatch()
        try Self.quitPicocom(pane)
        let served = try early.first { $0.id == waiting } ?? client.response(to: waiting, seconds: 10)
        #expect(served.frameTexts == ["queued"], "\(served)")
        #expect(stopwatch.elapsed < 5, "served \(stopwatch.elapsed) s after picocom quit")
        // The echo of picocom's keys never reached the waiting client.
        #expect(try client.call("transact", Params.transfer("echo", "after")).frameTexts == ["after"])
    }
}
