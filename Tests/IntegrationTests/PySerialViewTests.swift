import AccessoryTestSupport
import ControlProtocol
import Glibc
import JSONCodec
import SystemCalls
import Testing

/// A pyserial script (Debian's `python3-serial`, code nobody here wrote, opening the view as the
/// serial port it takes it for) sends AT commands through a `shared` view and reads the replies,
/// while 8 socket clients run `transact`s on the same modem. The two sides ask disjoint
/// commands, each with an answer of its own, so an answer handed to the wrong side is seen there.
///
/// Threading: each test runs on its own test thread and owns its scenario and the script's process.
@Suite struct PySerialViewTests {
    /// Why the tests cannot run here, nil when they can.
    static let missing: String? = {
        guard access("/usr/bin/python3", X_OK) == 0 else { return "/usr/bin/python3 is not installed" }
        return nil
    }()

    /// The script: `script.py PORT ROUNDS`. Writes each command as pyserial users do (`\r\n`),
    /// reads lines up to the final result, skips the modem's unsolicited `RING` and `+CMTI`, and
    /// prints one JSON line: the answers that were right, the ones that were not, and the first
    /// wrong ones.
    static let script = #"""
        import json, sys, time
        import serial

        ANSWERS = {"AT+CGMI": ["AccessorySim", "OK"], "AT+CGMM": ["SIM-AT1", "OK"], "AT+CGMR": ["1.0.0", "OK"]}
        FINAL = ("OK", "ERROR", "+CME ERROR")
        port = serial.Serial(sys.argv[1], 115200, timeout=10)
        right, wrong, examples = 0, 0, []
        commands = list(ANSWERS)
        for i in range(int(sys.argv[2])):
            command = commands[i % len(commands)]
            port.write((command + "\r\n").encode())
            lines = []
            while not lines or not lines[-1].startswith(FINAL):
                raw = port.readline()
                if not raw:
                    print(json.dumps({"right": right, "wrong": wrong, "examples": examples, "timeout": command}))
                    sys.exit(2)
                text = raw.decode(errors="replace").strip()
                if text and not text.startswith(("RING", "+CMTI:")):
                    lines.append(text)
            if lines == ANSWERS[command]:
                right += 1
            else:
                wrong += 1
                examples = (examples + ["%s -> %r" % (command, lines)])[:5]
        port.close()
        print(json.dumps({"right": right, "wrong": wrong, "examples": examples}))
        """#

    /// The socket clients' commands and their whole answers (as `transact` frames).
    static let clientAnswers: [(String, [String])] = [
        ("AT+CGSN", ["490154203237518", "OK"]), ("AT+CSQ", ["+CSQ: 23,99", "OK"]),
        ("AT+CPIN?", ["+CPIN: READY", "OK"]),
        ("ATI", ["Manufacturer: AccessorySim", "Model: SIM-AT1", "Revision: 1.0.0", "IMEI: 490154203237518", "OK"]),
    ]

    /// The modem as the embedded configuration has it: lines up to a final result are the answer,
    /// `RING` and `+CMTI:` go to subscribers (and views).
    static let modemMembers =
        #"response: {until: '^(OK|ERROR|\+CME ERROR.*)$', timeout_ms: 3000}, unsolicited: ['^RING$', '^\+CMTI: .*']"#

    /// Starts the script on `port` for `rounds` commands.
    static func startScript(_ port: String, rounds: Int, in s: Scenario) throws -> ChildRun {
        let path = try s.directory.write("at_script.py", script)
        return try ChildRun(
            label: "python3 (pyserial)",
            executable: "/usr/bin/python3",
            arguments: [path, port, String(rounds)],
            stdoutPath: s.directory.file("at_script.out"),
            stderrPath: s.directory.file("at_script.err")
        )
    }

    /// The script's JSON line once it has ended (bounded), and how it ended.
    static func outcome(_ run: ChildRun, seconds: Double) throws -> (JSONValue, ChildProcess.Termination) {
        guard let ended = run.wait(seconds: seconds) else {
            run.kill()
            throw HarnessError("the pyserial script did not finish in \(seconds) s: \(run.stdout) \(run.stderr)")
        }
        let line = run.stdout.split(separator: "\n").last.map(String.init) ?? ""
        guard let report = try? JSONParser.parse(Array(line.utf8)) else {
            throw HarnessError("the pyserial script ended (\(ended)) without its report: \(run.stdout) \(run.stderr)")
        }
        return (report, ended)
    }

    /// The harness on its own: the script on the modem's own pty (no daemon) gets every answer.
    @Test(.enabled(if: missing == nil, "\(missing ?? "")"))
    func theScriptGetsEveryAnswerOnTheModemsOwnPty() throws {
        let s = try Scenario()
        defer { s.finish() }
        let link = try s.simulator("modem", ["--personality", "at-modem", "--unsolicited-ms", "50"])
        let (report, ended) = try Self.outcome(try Self.startScript(link, rounds: 30, in: s), seconds: 30)
        #expect(ended == .exited(0), "\(report)")
        #expect(report["right"]?.intValue == 30, "\(report)")
    }

    @Test(.enabled(if: missing == nil, "\(missing ?? "")"))
    func aSharedViewAndEightSocketClientsGetTheirOwnAnswersOnly() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("modem", ["--personality", "at-modem", "--unsolicited-ms", "200", "--delay-ms", "2"])
        try s.startDaemon(accessories: [
            s.lineAccessory(
                "modem",
                framing: #"{type: line, delimiter: "\r\n", terminator: "\r"}"#,
                Self.modemMembers + ", views: [{pty: modem, mode: shared}]"
            )
        ])
        let rounds = 60
        let script = try Self.startScript(s.runtimeDirectory + "/tty/modem", rounds: rounds, in: s)
        defer { script.kill() }
        let clients = try (0..<8).map { _ in try s.connect() }
        defer { for client in clients { client.close() } }

        // Every client keeps one request in flight, in rounds, as long as the script runs.
        var right = 0
        var wrong: [String] = []
        var round = 0
        let deadline = Deadline(seconds: 60)
        while (script.isRunning || round < 10) && !deadline.hasPassed {
            let asked = try clients.enumerated().map { index, client in
                let (command, answer) = Self.clientAnswers[(index + round) % Self.clientAnswers.count]
                return (try client.send("transact", Params.transfer("modem", command)), command, answer)
            }
            for (client, (id, command, answer)) in zip(clients, asked) {
                let response = try client.response(to: id)
                if response.frameTexts == answer {
                    right += 1
                } else {
                    wrong.append(
                        "\(command) → \(response.result.map { "\($0)" } ?? response.error.map { "\($0)" } ?? "")"
                    )
                }
            }
            round += 1
        }
        let (report, ended) = try Self.outcome(script, seconds: 30)
        #expect(ended == .exited(0), "\(report) \(script.stderr)")
        #expect(report["right"]?.intValue == rounds, "the script's answers: \(report)")
        #expect(report["wrong"]?.intValue == 0, "crossed answers in the view: \(report)")
        #expect(wrong.isEmpty, "crossed answers on the sockets (\(wrong.count)): \(wrong.prefix(5))")
        #expect(right >= 80, "\(right) socket answers: the clients ran while the script did")
        print("pyserial through a shared view: \(report); 8 socket clients: \(right) right, \(wrong.count) wrong")
    }
}
