import AccessoryTestSupport
import Glibc
import SystemCalls
import Testing

/// `accessoryctl attach` in a terminal (a tmux pane), typed at as a person would, against the
/// built daemon and simulated accessories: raw mode, the escape key, maps, hex, timestamps, the
/// log, and the terminal put back however the session ends.
///
/// Threading: each test runs on its own test thread and owns its scenario, its tmux server
/// and the processes in it.
@Suite(.enabled(if: TmuxPane.missing == nil, "\(TmuxPane.missing ?? "")"))
struct TerminalAttachTests {
    /// A daemon serving `accessories` (name and simulator arguments), and a shell in tmux.
    private func world(_ accessories: [(String, [String])]) throws -> (Scenario, TmuxPane) {
        let s = try Scenario()
        do {
            for (name, arguments) in accessories { try s.simulator(name, arguments) }
            try s.startDaemon(accessories: accessories.map { s.lineAccessory($0.0) })
            return (s, try TmuxPane(in: s.directory))
        } catch {
            s.finish()
            throw error
        }
    }

    private func attach(_ s: Scenario, _ arguments: String) throws -> String {
        "'\(try BuiltProducts.executable("accessoryctl"))' --socket '\(s.socketPath)' attach \(arguments)"
    }

    /// Runs `attach arguments` in the pane and waits for its banner.
    private func start(_ pane: TmuxPane, _ s: Scenario, _ arguments: String) throws {
        try pane.command(try attach(s, arguments))
        let banner = pane.waitFor { $0.contains("[accessoryctl] attached to") }
        try #require(banner != nil, "no banner:\n\(pane.screen)")
    }

    /// After the program ended: its exit status as the shell saw it, and the terminal's settings.
    /// Waits for the program to end first: keys typed while it runs would go to the device.
    private func afterwards(_ pane: TmuxPane) throws -> (status: String?, stty: String) {
        let deadline = Deadline(seconds: 10)
        while pane.foregroundChild != nil && !deadline.hasPassed { usleep(20_000) }
        try #require(pane.foregroundChild == nil, "accessoryctl still running:\n\(pane.screen)")
        try pane.command("echo status=$?; stty -a")
        let screen = pane.waitFor { $0.contains("status=") && $0.contains("icanon") } ?? pane.screen
        let line = screen.split(separator: "\n").last { $0.contains("status=") && !$0.contains("$?") }
        let status = line.map { String($0[$0.firstRange(of: "status=")!.upperBound...]) }
        return (status, screen)
    }

    /// The settings a shell's terminal has: canonical input, echo, signals from keys.
    private func expectCooked(_ stty: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let words = Set(stty.split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == ";" }).map(String.init))
        for word in ["icanon", "echo", "isig", "icrnl", "opost"] {
            #expect(words.contains(word), "\(word) not restored:\n\(stty)", sourceLocation: sourceLocation)
        }
    }

    @Test func typedATCommandsAreAnsweredAndTheEscapeMenuQuits() throws {
        let (s, pane) = try world([("modem", ["--personality", "at-modem"])])
        defer {
            pane.finish()
            s.finish()
        }
        try start(pane, s, "modem --map crlf,inlcrnl --local-echo")
        // While attached, the terminal is raw: no canonical mode, no echo by the terminal.
        try pane.type("AT+CSQ")
        try pane.press("Enter")
        let answered = pane.waitFor { $0.contains("+CSQ: 23,99") && $0.contains("OK") }
        #expect(answered != nil, "\(pane.screen)")
        // The command was shown once (the local echo), not twice (the terminal's own echo is off).
        #expect(pane.screen.components("AT+CSQ") == 1, "\(pane.screen)")
        try pane.type("ATI")
        try pane.press("Enter")
        #expect(pane.waitFor { $0.contains("SIM-AT1") } != nil, "\(pane.screen)")

        try pane.press("C-t")
        try pane.type("?")
        let help = pane.waitFor { $0.contains("s  show the session's statistics") }
        #expect(help?.contains("Ctrl-T then:") == true, "\(pane.screen)")
        #expect(help?.contains("q  quit") == true)
        #expect(help?.contains("b  send a break") == true)
        try pane.press("C-t")
        try pane.type("s")
        #expect(pane.waitFor { $0.contains("[accessoryctl] sent 13 bytes, received") } != nil, "\(pane.screen)")
        try pane.press("C-t")
        try pane.type("q")
        let (status, stty) = try afterwards(pane)
        #expect(status == "0", "\(pane.screen)")
        expectCooked(stty)
    }

    @Test func ctrlCReachesTheDeviceAsAByteShownInHex() throws {
        // A raw byte echo: every read written back at once, as a terminal user sees a device echo.
        let (s, pane) = try world([("echo", ["--personality", "echo", "--terminator", "none"])])
        defer {
            pane.finish()
            s.finish()
        }
        // The mapping does not change the hexadecimal view: 0a stays 0a.
        try start(pane, s, "echo --hex --map inlcrnl")
        try pane.press("C-c")
        // The echo accessory sent 0x03 back: Ctrl-C was a byte, not a signal.
        #expect(pane.waitFor { $0.split(separator: "\n").contains { $0.hasPrefix("03") } } != nil, "\(pane.screen)")
        try pane.type("A")
        try pane.press("C-t", "C-t", "C-j")
        #expect(pane.waitFor { $0.contains("03 41 14 0a") } != nil, "Ctrl-T twice sends it once:\n\(pane.screen)")
        // h back to text, t timestamps on: each line of output starts with the time.
        try pane.press("C-t")
        try pane.type("h")
        try pane.press("C-t")
        try pane.type("t")
        #expect(pane.waitFor { $0.contains("[accessoryctl] timestamps on") } != nil, "\(pane.screen)")
        try pane.type("hello")
        try pane.press("C-j")
        try pane.type("world")
        try pane.press("C-j")
        let stamped = pane.waitFor { screen in
            screen.split(separator: "\n").contains { $0.hasStamp(then: "world") }
        }
        #expect(stamped?.split(separator: "\n").contains { $0.hasStamp(then: "hello") } == true, "\(pane.screen)")
        // Still attached after all that: Ctrl-C ended nothing.
        try pane.press("C-t")
        try pane.type("q")
        let (status, stty) = try afterwards(pane)
        #expect(status == "0", "\(pane.screen)")
        expectCooked(stty)
    }

    @Test func theTerminalIsRestoredWhenTheDeviceIsUnpluggedMidSession() throws {
        // Answers once, then closes its pty (the device goes away).
        let (s, pane) = try world([("flaky", ["--personality", "echo", "--hangup-after", "1"])])
        defer {
            pane.finish()
            s.finish()
        }
        try start(pane, s, "flaky")
        try pane.type("one")
        try pane.press("C-j")
        #expect(pane.waitFor { $0.contains("one") } != nil)
        try pane.type("two")
        try pane.press("C-j")
        #expect(pane.waitFor { $0.contains("closed the connection") } != nil, "\(pane.screen)")
        let (status, stty) = try afterwards(pane)
        #expect(status == "1", "\(pane.screen)")
        expectCooked(stty)
    }

    @Test func sigtermAndSighupRestoreTheTerminal() throws {
        let (s, pane) = try world([("echo", ["--personality", "echo"])])
        defer {
            pane.finish()
            s.finish()
        }
        for signal in [SIGTERM, SIGHUP] {
            try start(pane, s, "echo")
            let pid = try #require(pane.foregroundChild)
            try ChildProcess.signal(pid, signal)
            let (status, stty) = try afterwards(pane)
            #expect(status == "0", "signal \(signal):\n\(pane.screen)")
            expectCooked(stty)
            try pane.command("clear")
            #expect(pane.waitFor { !$0.contains("status=") } != nil)
        }
    }

    @Test func lineCommandsAnswerInTheSessionAndTheLogHasBothWays() throws {
        let (s, pane) = try world([("echo", ["--personality", "echo"])])
        defer {
            pane.finish()
            s.finish()
        }
        let log = s.directory.file("session.log")
        try start(pane, s, "echo --log '\(log)' --map crlf")
        try pane.type("ping")
        try pane.press("Enter")
        #expect(pane.waitFor { $0.contains("ping") } != nil)
        // b, d, r: sent on a second connection with the session's token, they run inside the
        // session at once. A pty takes a break; it has no modem lines (ENOTTY), which the daemon
        // says naming the accessory and the reason. Not "locked by client N": that was the answer
        // to another client. The session goes on.
        try pane.press("C-t")
        try pane.type("b")
        let broke = pane.waitFor(seconds: 15) { $0.contains("[accessoryctl] break sent (250 ms)") }
        #expect(broke != nil, "\(pane.screen)")
        let unsupported = "[accessoryctl] I/O error on echo: modem lines are not available on "
        for (key, count) in [("d", 1), ("r", 2)] {
            try pane.press("C-t")
            try pane.type(key)
            let refused = pane.waitFor(seconds: 15) { screen in
                screen.ranges(of: unsupported).count == count
                    && screen.contains("(ENOTTY)")
            }
            #expect(refused != nil, "\(key):\n\(pane.screen)")
        }
        #expect(!pane.screen.contains("locked by client"), "\(pane.screen)")
        try pane.type("pong")
        try pane.press("Enter")
        #expect(pane.waitFor { $0.contains("pong") } != nil)
        try pane.press("C-t")
        try pane.type("q")
        let (status, _) = try afterwards(pane)
        #expect(status == "0", "\(pane.screen)")
        let lines = FileIO.readText(log).split(separator: "\n").map { String($0.dropFirst(24)) }
        #expect(lines == ["> ping", "< ping", "> pong", "< pong"], "\(FileIO.readText(log))")
        #expect(try FileIO.status(ofPath: log)?.permissions == 0o600)
    }

    @Test func aLogPathThatIsASymbolicLinkIsRefused() throws {
        let (s, pane) = try world([("echo", ["--personality", "echo"])])
        defer {
            pane.finish()
            s.finish()
        }
        let target = try s.directory.write("victim", "untouched\n")
        let link = s.directory.file("link.log")
        try FileIO.symlink(target: target, at: link)
        try pane.command(try attach(s, "echo --log '\(link)'"))
        #expect(pane.waitFor { $0.contains("cannot open the log file") } != nil, "\(pane.screen)")
        let (status, _) = try afterwards(pane)
        #expect(status == "2")
        #expect(FileIO.readText(target) == "untouched\n")
    }
}

extension Substring {
    /// `[HH:MM:SS.mmm] <text>`.
    func hasStamp(then text: String) -> Bool {
        let bytes = Array(utf8)
        guard bytes.count >= 15 + text.utf8.count, bytes[0] == UInt8(ascii: "["), bytes[13] == UInt8(ascii: "]")
        else { return false }
        let pattern = Array("dd:dd:dd.ddd".utf8)
        for (i, p) in pattern.enumerated() {
            let b = bytes[1 + i]
            if p == UInt8(ascii: "d") ? !(0x30...0x39).contains(b) : b != p { return false }
        }
        return String(decoding: bytes[15...], as: UTF8.self).hasPrefix(text)
    }
}

extension String {
    /// How many times `needle` occurs.
    func components(_ needle: String) -> Int {
        var count = 0
        var rest = Substring(self)
        while let range = rest.firstRange(of: needle) {
            count += 1
            rest = rest[range.upperBound...]
        }
        return count
    }
}
