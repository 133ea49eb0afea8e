import AccessoryTestSupport
import ControlProtocol
import Glibc
import JSONCodec
import SystemCalls
import Testing
import TrafficTrace

/// Record and replay, end to end (docs/replay.md): a client script sends 50 AT commands to the
/// simulated modem through the daemon while `accessoryctl record` records; the recording is
/// replayed by `accessory-sim --replay` and the same script runs against it directly on the pty
/// (pyserial) and through a daemon whose accessory is `simulate: {personality: replay}`. Every
/// run sees the same replies, in the same order, with the timeouts where they were. A changed
/// command fails the replay naming the line; a rule for it makes it pass.
///
/// Threading: each test runs on its own test thread and owns its scenario and processes.
@Suite(.serialized) struct ReplayModemTests {
    static let missing: String? = {
        guard access("/usr/bin/python3", X_OK) == 0 else { return "/usr/bin/python3 is not installed" }
        return nil
    }()

    /// 50 commands. `AT` is asked before `ATE1`, while the modem echoes, and after `ATE0`: three
    /// different answers to one command. The recording simulator drops every 7th reply
    /// (`--drop-every 7`), so commands 7, 14, … time out.
    static let commands: [String] = {
        let cycle = ["AT", "ATI", "AT+CSQ", "AT+CGMI", "AT+CMGR=1", "AT+CMGR=5", "AT+CPIN?", "AT+CGSN", "ATX"]
        var list: [String] = []
        for round in 0..<5 {
            list += cycle.prefix(8)
            if round == 1 { list += ["ATE1", "AT"] }
            if round == 3 { list += ["ATE0", "AT"] }
        }
        return Array((list + cycle).prefix(50))
    }()

    /// `client.py daemon SOCKET DEVICE COMMANDS` or `client.py pty PATH COMMANDS`: sends each
    /// command and prints one JSON line: `[[command, [reply lines]] or [command, null] for a
    /// timeout, …]`. Reply lines are the answer's non-empty lines without their line ends.
    static let script = #"""
        import base64, json, socket, sys

        FINAL = ("OK", "ERROR", "+CME ERROR")
        TIMEOUT_S = 0.6

        def over_daemon(path, device, commands):
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            sock.connect(path)
            stream = sock.makefile("rwb")
            out = []
            for number, command in enumerate(commands, 1):
                request = {"jsonrpc": "2.0", "id": number, "method": "transact",
                           "params": {"device": device, "data": command, "timeout_ms": int(TIMEOUT_S * 1000)}}
                stream.write((json.dumps(request) + "\n").encode())
                stream.flush()
                while True:
                    message = json.loads(stream.readline())
                    if message.get("id") == number:
                        break
                if "error" in message:
                    out.append([command, None])
                else:
                    frames = [base64.b64decode(frame["data_base64"]) for frame in message["result"]["frames"]]
                    lines = [frame.decode(errors="replace").strip() for frame in frames]
                    out.append([command, [line for line in lines if line]])
            return out

        def over_pty(path, commands):
            import serial
            port = serial.Serial(path, 115200, timeout=TIMEOUT_S)
            out = []
            for command in commands:
                port.write((command + "\r").encode())
                lines = []
                while not lines or not lines[-1].startswith(FINAL):
                    raw = port.readline()
                    if not raw:
                        lines = None
                        break
                    text = raw.decode(errors="replace").strip()
                    if text:
                        lines.append(text)
                out.append([command, lines])
            return out

        mode = sys.argv[1]
        commands = open(sys.argv[-1]).read().split()
        result = over_daemon(sys.argv[2], sys.argv[3], commands) if mode == "daemon" else over_pty(sys.argv[2], commands)
        print(json.dumps(result))
        """#

    /// The modem's framing and answer rule in the daemon; a short late window after a timeout.
    static func modem(_ s: Scenario, path: String? = nil, source: String? = nil) -> String {
        let members =
            #"response: {until: '^(OK|ERROR|\+CME ERROR.*)$', timeout_ms: 600}, resync: {late_ms: 1000, settle_ms: 50}"#
        if let source {
            return
                "  - {name: modem, \(source), framing: {type: line, delimiter: \"\\r\\n\", terminator: \"\\r\"}, \(members)}"
        }
        return s.lineAccessory(
            "modem",
            path: path,
            framing: #"{type: line, delimiter: "\r\n", terminator: "\r"}"#,
            members
        )
    }

    /// Runs the script and returns its result line, parsed.
    static func runScript(_ arguments: [String], commands: [String], in s: Scenario, label: String) throws -> JSONValue
    {
        let scriptPath = try s.directory.write("client.py", script)
        let commandsPath = try s.directory.write("commands-\(label).txt", commands.joined(separator: "\n") + "\n")
        let run = try ChildRun(
            label: "python3 client (\(label))",
            executable: "/usr/bin/python3",
            arguments: [scriptPath] + arguments + [commandsPath],
            stdoutPath: s.directory.file("client-\(label).out"),
            stderrPath: s.directory.file("client-\(label).err")
        )
        guard let ended = run.wait(seconds: 120) else {
            run.kill()
            throw HarnessError("the client script (\(label)) did not finish: \(run.stderr)")
        }
        guard ended == .exited(0), let result = try? JSONParser.parse(Array(run.stdout.utf8)) else {
            throw HarnessError("the client script (\(label)) ended \(ended): \(run.stdout) \(run.stderr)")
        }
        return result
    }

    /// Records the script's session with the simulated modem; returns the recording's path and
    /// what the script saw.
    static func record(in s: Scenario, redact: [String] = []) throws -> (String, JSONValue) {
        try s.simulator("modem", ["--personality", "at-modem", "--drop-every", "7"])
        try s.startDaemon(accessories: [modem(s)])
        let recording = s.directory.file("modem.recording")
        let recorder = try startRecorder(in: s, to: recording, redact.flatMap { ["--redact", $0] })
        defer { recorder.kill() }
        let seen = try runScript(["daemon", s.socketPath, "modem"], commands: commands, in: s, label: "recorded")
        stop(recorder, at: recording, requests: commands.count)
        return (recording, seen)
    }

    /// Starts `accessoryctl record modem -o recording` plus `extra`; returns once it has
    /// subscribed (it writes the header then).
    static func startRecorder(in s: Scenario, device: String = "modem", to recording: String, _ extra: [String] = [])
        throws -> ChildRun
    {
        let recorder = try ChildRun(
            label: "accessoryctl record",
            executable: try BuiltProducts.executable("accessoryctl"),
            arguments: ["--socket", s.socketPath, "record", device, "-o", recording] + extra,
            stdoutPath: s.directory.file("record-\(device).out"),
            stderrPath: s.directory.file("record-\(device).err")
        )
        let subscribed = Wait.until(seconds: 15) { TemporaryDirectory.contents(of: recording).hasSuffix("}\n") }
        #expect(subscribed, "the recorder did not start: \(recorder.stderr)")
        return recorder
    }

    /// Stops the recorder once `requests` requests and the answer to the last are in the file:
    /// the script has its last answer, so the daemon has read it; the recorder gets it next.
    static func stop(_ recorder: ChildRun, at recording: String, requests: Int) {
        _ = Wait.until(seconds: 10) {
            guard let read = try? Recordings.read(recording) else { return false }
            let session = Recordings.session(read)
            return session.exchanges.count == requests
                && (session.exchanges.last?.reply.hasSuffix("OK\\r\\n") == true
                    || session.exchanges.last?.reply.hasSuffix("ERROR\\r\\n") == true)
        }
        #expect(recorder.terminate() == .exited(0), "\(recorder.stderr)")
    }

    /// Starts `accessory-sim --replay` on `recording` with `extra` options.
    static func replay(_ recording: String, _ extra: [String] = [], in s: Scenario, name: String) throws -> SimulatorRun
    {
        let report = s.directory.file("\(name).report.json")
        try s.simulator(name, ["--replay", recording, "--report", report] + extra)
        guard let run = s.simulator(named: name) else { throw HarnessError("no simulator \(name)") }
        return run
    }

    @Test(.enabled(if: missing == nil, "\(missing ?? "")"))
    func aRecordedModemSessionReplaysIdenticallyOnThePtyAndThroughTheDaemon() throws {
        let s = try Scenario()
        defer { s.finish() }
        let (recording, recorded) = try Self.record(in: s)
        let answers = recorded.arrayValue ?? []
        #expect(answers.count == 50)
        let timeouts = answers.indices.filter { Self.reply(answers[$0]) == .null }
        #expect(timeouts.count >= 5, "the dropped replies time out: \(recorded)")
        let atAnswers = Set(answers.filter { $0.arrayValue?.first == "AT" }.compactMap { Self.reply($0) })
        #expect(atAnswers.count >= 2, "AT has different answers with and without echo: \(atAnswers)")

        // Directly on the replay's pty, with pyserial.
        let direct = try Self.replay(recording, in: s, name: "direct")
        let onPty = try Self.runScript(["pty", direct.link], commands: Self.commands, in: s, label: "pty")
        #expect(onPty == recorded, "pyserial on the replay:\n\(onPty)\nrecorded:\n\(recorded)")
        #expect(direct.child.terminate() == .exited(0), "\(direct.child.stderr)")
        let report = try JSONParser.parse(
            Array(TemporaryDirectory.contents(of: s.directory.file("direct.report.json")).utf8)
        )
        #expect(
            report["matched"] == .int(50) && report["mismatched"] == .int(0) && report["unasked"] == .int(0),
            "\(report)"
        )

        // Through a daemon whose accessory is the replay.
        _ = s.stopDaemon()
        let replayReport = s.directory.file("daemon-replay.report.json")
        let second = try Scenario()
        defer { second.finish() }
        try second.startDaemon(
            accessories: [
                Self.modem(
                    second,
                    source: "simulate: {personality: replay, file: \(recording), report: \(replayReport)}"
                )
            ],
            ready: ["modem"]
        )
        // Recorded again: the two recordings are the same session, up to timestamps.
        let again = second.directory.file("again.recording")
        let recorder = try Self.startRecorder(in: second, to: again)
        defer { recorder.kill() }
        let viaDaemon = try Self.runScript(
            ["daemon", second.socketPath, "modem"],
            commands: Self.commands,
            in: second,
            label: "daemon"
        )
        #expect(viaDaemon == recorded, "through the daemon on the replay:\n\(viaDaemon)\nrecorded:\n\(recorded)")
        Self.stop(recorder, at: again, requests: Self.commands.count)
        let first = Recordings.session(try Recordings.read(recording))
        let fromReplay = Recordings.session(try Recordings.read(again))
        #expect(first == fromReplay, "recorded:\n\(first)\nrecorded from the replay:\n\(fromReplay)")
        #expect(first.exchanges.count == 50)
    }

    @Test(.enabled(if: missing == nil, "\(missing ?? "")"))
    func aChangedCommandFailsTheReplayNamingTheLineAndARuleMakesItPass() throws {
        let s = try Scenario()
        defer { s.finish() }
        let (recording, _) = try Self.record(in: s)
        var changed = Self.commands
        let index = changed.firstIndex(of: "AT+CMGR=1")!
        changed[index] = "AT+CMGR=2"
        let recordedLine = Self.lineOfRequest(index, in: recording)

        let strict = try Self.replay(recording, in: s, name: "strict")
        _ = try Self.runScript(["pty", strict.link], commands: changed, in: s, label: "strict")
        #expect(strict.child.terminate() == .exited(1), "a mismatch fails the replay: \(strict.child.stderr)")
        #expect(strict.child.stderr.contains("\"AT+CMGR=2\\r\" not in the recording"), "\(strict.child.stderr)")
        #expect(strict.child.stderr.contains("line \(recordedLine)"), "line \(recordedLine): \(strict.child.stderr)")

        let rules = try s.directory.write("modem.rules", "# any stored message\nAT\\+CMGR=[0-9]+\\r\n")
        let ruled = try Self.replay(recording, ["--rules", rules], in: s, name: "ruled")
        _ = try Self.runScript(["pty", ruled.link], commands: changed, in: s, label: "ruled")
        #expect(ruled.child.terminate() == .exited(0), "\(ruled.child.stderr)")
    }

    @Test func redactedBytesAreNowhereInTheRecording() throws {
        let s = try Scenario()
        defer { s.finish() }
        let secret = "4917"
        try s.simulator("modem", ["--personality", "at-modem"])
        try s.startDaemon(accessories: [Self.modem(s)])
        let recording = s.directory.file("secret.recording")
        let recorder = try ChildRun(
            label: "accessoryctl record",
            executable: try BuiltProducts.executable("accessoryctl"),
            arguments: ["--socket", s.socketPath, "record", "modem", "-o", recording, "--redact", "4917|[0-9]{15}"],
            stdoutPath: s.directory.file("record.out"),
            stderrPath: s.directory.file("record.err")
        )
        defer { recorder.kill() }
        #expect(Wait.until(seconds: 15) { TemporaryDirectory.contents(of: recording).hasSuffix("}\n") })
        let client = try s.connect()
        defer { client.close() }
        _ = try client.response(to: try client.send("transact", Params.transfer("modem", "AT+CPIN=\(secret)")))
        _ = try client.response(to: try client.send("transact", Params.transfer("modem", "ATI")))
        // Both answers are in the file once the second one's final result is.
        #expect(Wait.until(seconds: 10) { Self.decodedBytes(recording).hasSuffix("OK\r\n") })
        #expect(recorder.terminate() == .exited(0), "\(recorder.stderr)")
        let text = TemporaryDirectory.contents(of: recording)
        let decoded = Self.decodedBytes(recording)
        // The header keeps the accessory's settings as device.status gave them.
        let header = try Recordings.read(recording)
        #expect(
            header.device == "modem" && header.settings["settings"]?.contains("\"baud\"") == true,
            "\(header.settings)"
        )
        #expect(decoded.contains("AT+CPIN=****"), "\(decoded.debugDescription)")
        #expect(decoded.contains("IMEI: ***************"), "\(decoded.debugDescription)")
        #expect(!decoded.contains(secret) && !text.contains(secret), "\(decoded.debugDescription)")
        #expect(!decoded.contains("490154203237518"), "\(decoded.debugDescription)")
    }

    /// The reply of one `[command, reply]` pair of the script's output (null for a timeout).
    static func reply(_ pair: JSONValue) -> JSONValue? {
        guard let items = pair.arrayValue, items.count == 2 else { return nil }
        return items[1]
    }

    /// Every record's bytes in a recording, one after the other, as text.
    static func decodedBytes(_ recording: String) -> String {
        var decoded = ""
        for line in TemporaryDirectory.contents(of: recording).split(separator: "\n") {
            guard let value = try? JSONParser.parse(Array(line.utf8)), let data = value["data_base64"]?.stringValue,
                let bytes = try? Base64.decode(data)
            else { continue }
            decoded += String(decoding: bytes, as: UTF8.self)
        }
        return decoded
    }

    /// The file line of the `index`-th request in a recording.
    static func lineOfRequest(_ index: Int, in recording: String) -> Int {
        let lines = TemporaryDirectory.contents(of: recording).split(separator: "\n", omittingEmptySubsequences: false)
        var seen = 0
        for (number, line) in lines.enumerated() where line.contains("\"dir\":\"tx\"") {
            if seen == index { return number + 1 }
            seen += 1
        }
        return -1
    }
}
