import AccessorySimulator
import AccessoryVersion
import ArgumentParser
import Glibc
import IOLoop
import SystemCalls

/// `accessory-sim`: runs simulated serial accessories on pseudo-terminals until SIGTERM or
/// SIGINT, then removes its links and exits 0.
///
/// The stdout contract (stable; the daemon and the tests parse it). One line per event, written
/// unbuffered, fields separated by single spaces:
/// - `READY <name> <slave path>`: the accessory's pty is open and its slave can be opened now
///   (the link, if any, is already in place). Printed once per accessory at start, in order,
///   and again, with the new path, each time it reappears after a hang-up.
/// - `GONE <name>`: the accessory hung up (its pty master closed).
/// Names never contain spaces; with `--count K` > 1 they are `<name>0` … `<name>K-1` (and the
/// links `<link>0` … `<link>K-1`). Consumers must ignore lines that start with another word.
/// SIGUSR1 hangs every accessory up (reappearing after `--reappear-after-ms` when given): an
/// unplug at the moment a test chooses.
/// Diagnostics go to stderr. Exit status: 0 after SIGTERM/SIGINT, 1 if an accessory could not
/// start (those already started are stopped and their links removed), 64 for bad arguments.
///
/// Threading: everything runs on the main thread's IOLoop.
struct AccessorySimCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accessory-sim",
        abstract: "Simulated serial accessories on pseudo-terminals.",
        discussion: """
            Prints `READY <name> <slave path>` on stdout for each accessory once it can be opened \
            (again after each reappearance), `GONE <name>` when one hangs up, and runs until \
            SIGTERM or SIGINT; then it removes its links and exits 0. SIGUSR1 unplugs every \
            accessory (it hangs up as --hangup-after does, and reappears after \
            --reappear-after-ms if given).
            """,
        version: AccessoryVersion.line("accessory-sim")
    )

    @Option(help: "How the accessory answers.")
    var personality: PersonalityArgument = .echo

    @Option(help: ArgumentHelp("The accessory's name in READY lines (default: the personality).", valueName: "name"))
    var name: String?

    @Option(
        help: ArgumentHelp(
            "Also publish the slave as a symbolic link at this path (made atomically).",
            valueName: "path"
        )
    )
    var link: String?

    @Option(
        help: ArgumentHelp(
            "How many accessories to run (names and links get a 0-based index suffix when > 1).",
            valueName: "k"
        )
    )
    var count: Int = 1

    @Option(help: "Inbound line end for echo and script (default: lf for echo, any for script).")
    var terminator: TerminatorArgument?

    @Option(help: "Frame encoding of the framed personality.")
    var framing: FramingArgument = .slip

    @Option(help: ArgumentHelp("The YAML script file of the script personality.", valueName: "file"))
    var script: String?

    @Option(help: ArgumentHelp("Response delay added to every reply, in milliseconds.", valueName: "ms"))
    var delayMs: Int = 0

    @Option(
        help: ArgumentHelp(
            "Period of unsolicited lines: RING/+CMTI for at-modem, fixes for nmea (default 1000).",
            valueName: "ms"
        )
    )
    var unsolicitedMs: Int?

    @Option(
        help: ArgumentHelp(
            "Fault: hold replies back this long (make it longer than the client's timeout).",
            valueName: "ms"
        )
    )
    var lateMs: Int?

    @Option(help: ArgumentHelp("Fault: only every N-th reply is late (with --late-ms).", valueName: "n"))
    var lateEvery: Int = 1

    @Option(help: ArgumentHelp("Fault: every N-th reply is random bytes (framing bytes kept).", valueName: "n"))
    var garbageEvery: Int?

    @Option(help: ArgumentHelp("Fault: each reply is garbage with this probability (0...1).", valueName: "p"))
    var garbageProbability: Double = 0

    @Option(help: ArgumentHelp("Fault: every N-th reply is dropped.", valueName: "n"))
    var dropEvery: Int?

    @Option(
        help: ArgumentHelp(
            "Fault: after N replies, hang up (close the pty master) instead of the next one.",
            valueName: "n"
        )
    )
    var hangupAfter: Int?

    @Option(
        help: ArgumentHelp(
            "Fault: after a hang-up, reappear on a new pty (link flipped) after this many ms.",
            valueName: "ms"
        )
    )
    var reappearAfterMs: Int?

    @Flag(help: "While hung up, leave the link dangling instead of removing it.")
    var keepDanglingLink = false

    @Option(
        help: ArgumentHelp(
            "Write each reply in two halves, the second this many ms after the first (a frame split across reads).",
            valueName: "ms"
        )
    )
    var splitMs: Int?

    @Option(
        help: ArgumentHelp(
            "framed and raw echo (--terminator none): each reply repeats the received payload N times (1-1024).",
            valueName: "n"
        )
    )
    var replyRepeat: Int = 1

    @Option(
        help: ArgumentHelp(
            "esp32-rom: flash starts the application (the loader needs esptool's DTR/RTS reset), download starts the ROM loader.",
            valueName: "mode"
        )
    )
    var boot: BootArgument = .flash

    @Option(
        help: ArgumentHelp(
            "Take the host's DTR/RTS (which a pty cannot carry) as datagrams on a Unix socket made at this path.",
            valueName: "path"
        )
    )
    var linesSocket: String?

    @Option(help: ArgumentHelp("Seed for garbage bytes and fault draws (random by default).", valueName: "n"))
    var seed: UInt64?

    @Option(help: ArgumentHelp("Longest inbound line or frame, in bytes.", valueName: "bytes"))
    var maxLength: Int = 65_536

    @Option(
        help: ArgumentHelp(
            "Write to FILE how often another process closed the pty (the stand-in for a hang-up: on a real port, a DTR drop).",
            valueName: "file"
        )
    )
    var countCloses: String?

    @OptionGroup var replayArguments: ReplayArguments
    /// The longest Unix socket path (`sun_path` less its terminating NUL).
    static let maxSocketPathBytes = 107

    func validate() throws {
        if count < 1 { throw ValidationError("--count must be at least 1") }
        if personality == .script && script == nil { throw ValidationError("--personality script needs --script FILE") }
        if script != nil && personality != .script { throw ValidationError("--script needs --personality script") }
        for (flag, v) in [
            ("--delay-ms", delayMs), ("--unsolicited-ms", unsolicitedMs ?? 1), ("--late-ms", lateMs ?? 0),
            ("--reappear-after-ms", reappearAfterMs ?? 0), ("--hangup-after", hangupAfter ?? 0),
        ] where v < 0 {
            throw ValidationError("\(flag) must not be negative")
        }
        if let u = unsolicitedMs, u == 0 { throw ValidationError("--unsolicited-ms must be positive") }
        if let s = splitMs, s <= 0 { throw ValidationError("--split-ms must be positive") }
        if !(1...1024).contains(replyRepeat) { throw ValidationError("--reply-repeat must be from 1 to 1024") }
        for (flag, v) in [
            ("--late-every", lateEvery), ("--garbage-every", garbageEvery ?? 1), ("--drop-every", dropEvery ?? 1),
        ]
        where v < 1 {
            throw ValidationError("\(flag) must be at least 1")
        }
        if !(0...1).contains(garbageProbability) { throw ValidationError("--garbage-probability must be in 0...1") }
        if maxLength < 1 { throw ValidationError("--max-length must be at least 1") }
        if let n = name, n.isEmpty || n.contains(" ") { throw ValidationError("--name must be non-empty, no spaces") }
        if countCloses != nil && (count != 1 || hangupAfter != nil || reappearAfterMs != nil) {
            throw ValidationError(
                "--count-closes watches one pty: not with --count, --hangup-after or --reappear-after-ms"
            )
        }
        try replayArguments.validate(personality: personality)
        if replayArguments.replay != nil && count > 1 {
            throw ValidationError("--replay plays one accessory (--count 1)")
        }
    }

    /// `--personality`, `replay` when `--replay FILE` is given.
    var chosenPersonality: PersonalityArgument { replayArguments.replay != nil ? .replay : personality }

    func run() throws {
        FileIO.ignoreSignal(SIGPIPE)
        var base: SimulatorConfiguration
        do {
            base = try baseConfiguration()
        } catch {
            StandardStreams.err("\(error)")
            throw ExitCode(1)
        }
        // A socket path longer than sun_path (a deep runtime folder) cannot be bound: the
        // accessory still runs, without the host's modem lines, rather than not at all.
        if let path = base.linesSocketPath, path.utf8.count + String(count).utf8.count > Self.maxSocketPathBytes {
            StandardStreams.err(
                "--lines-socket \(path) is too long for a Unix socket; the modem lines will not reach it"
            )
            base.linesSocketPath = nil
        }
        let signals = try SignalFD.create([SIGTERM, SIGINT, SIGUSR1])
        let signalFD = signals.rawValue
        let loop = try IOLoop.forCurrentThread(name: "accessory-sim")
        var accessories: [SimulatedAccessory] = []
        for i in 0..<count {
            var c = base
            if count > 1 {
                c.name += String(i)
                c.linkPath = link.map { $0 + String(i) }
                c.linesSocketPath = base.linesSocketPath.map { $0 + String(i) }
            }
            let name = c.name
            do {
                accessories.append(try SimulatedAccessory.start(c, on: loop) { Self.report($0, name: name) })
            } catch {
                StandardStreams.err("\(name): \(error)")
                for a in accessories { a.stop() }
                loop.shutdown()
                throw ExitCode(1)
            }
        }
        var closeCounter: CloseCounter?
        if let countCloses, let slave = accessories.first?.status.slavePath {
            do {
                closeCounter = try CloseCounter(slavePath: slave, file: countCloses, on: loop)
            } catch {
                StandardStreams.err("--count-closes \(countCloses): \(error)")
                for a in accessories { a.stop() }
                loop.shutdown()
                throw ExitCode(1)
            }
        }
        // Registered once every accessory runs (a signal sent earlier waits in the descriptor).
        let started = accessories
        let reappearAfter = reappearAfterMs.map { Duration.milliseconds($0) }
        _ = try loop.addSource(owning: signals, interest: .readable) { _ in
            while let signal = try? SignalFD.next(signalFD) {
                if signal == SIGUSR1 {
                    // An unplug from outside, at a moment the test chooses.
                    StandardStreams.err("signal \(signal), hanging up")
                    for a in started { a.hangUp(reappearAfter: reappearAfter) }
                    continue
                }
                StandardStreams.err("signal \(signal), stopping")
                loop.stop()
            }
        }
        loop.run()
        withExtendedLifetime(closeCounter) {}
        for a in accessories { a.stop() }
        loop.shutdown()
        if case .replay(let plan) = base.personality, replayArguments.finish(plan) { throw ExitCode(1) }
    }

    static func report(_ event: SimulatorEvent, name: String) {
        switch event {
        case .appeared(let path): StandardStreams.out("READY \(name) \(path)")
        case .hungUp: StandardStreams.out("GONE \(name)")
        }
    }

    func baseConfiguration() throws(SimulatorError) -> SimulatorConfiguration {
        let p: Personality
        switch chosenPersonality {
        case .echo: p = .echo
        case .atModem: p = .atModem
        case .nmea: p = .nmea
        case .framed: p = .framed(Framing(rawValue: framing.rawValue) ?? .slip)
        case .script: p = .script(try SimulatorScript.load(path: script ?? ""))
        case .replay:
            guard let plan = try replayArguments.plan() else { throw .invalidConfiguration("--replay FILE is missing") }
            p = .replay(plan)
        case .esp32ROM: p = .esp32ROM(boot == .download ? .download : .flash)
        }
        let defaultTerminator: LineTerminator = chosenPersonality == .echo ? .lf : .any
        let faults = FaultSwitches(
            lateBy: lateMs.map { .milliseconds($0) },
            lateEvery: lateEvery,
            garbageEvery: garbageEvery,
            garbageProbability: garbageProbability,
            dropEvery: dropEvery,
            hangupAfter: hangupAfter,
            reappearAfter: reappearAfterMs.map { .milliseconds($0) }
        )
        return SimulatorConfiguration(
            name: name ?? chosenPersonality.rawValue,
            personality: p,
            terminator: terminator.flatMap { LineTerminator(rawValue: $0.rawValue) } ?? defaultTerminator,
            responseDelay: .milliseconds(delayMs),
            unsolicitedInterval: unsolicitedMs.map { .milliseconds($0) },
            faults: faults,
            linkPath: link,
            keepLinkWhileGone: keepDanglingLink,
            maxInboundLength: maxLength,
            seed: seed,
            splitReplies: splitMs.map { .milliseconds($0) },
            replyRepeat: replyRepeat,
            linesSocketPath: linesSocket
        )
    }
}
