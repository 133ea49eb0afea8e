import AccessorySimulator
import Testing

/// The `script` personality: YAML loading and answering.
///
/// Threading: each test runs on its test thread and owns a spawned loop, its accessory and its pty.
@Suite struct ScriptTests {
    static let instrument = """
        terminator: any
        reply_terminator: "\\r\\n"
        unmatched: "ERR $0"
        steps:
          - expect: "*IDN?"
            send: "ACME,Model 1,1234,1.0"
          - expect: 'VOLT (\\d+)\\.(\\d)'
            send: ["SET $1 $2", "OK"]
            delay_ms: 150
          - expect: "RESET"
        """

    @Test func aScriptFileAnswersByRulesWithCapturesDelaysAndUnmatched() throws {
        let folder = try TemporaryFolder()
        let path = try folder.write("instrument.yaml", Self.instrument)
        let script = try SimulatorScript.load(path: path)
        #expect(script.steps.count == 3)
        #expect(script.steps[1].line == 7)
        try withSimulator(SimulatorConfiguration(personality: .script(script))) { sim, _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            try client.write("*IDN?\n")
            #expect(try client.read(through: "\r\n") == "ACME,Model 1,1234,1.0\r\n")
            let start = SlaveClient.now()
            try client.write("VOLT 12.5\r\n")
            #expect(try client.read(through: "OK\r\n") == "SET 12 5\r\nOK\r\n")
            #expect(SlaveClient.now() - start >= 0.14)
            try client.write("RESET\r")
            #expect(client.drain(seconds: 0.05).isEmpty)
            try client.write("what\r")
            #expect(try client.read(through: "\r\n") == "ERR what\r\n")
        }
    }

    @Test func aSequenceMustBeFollowedInOrderAndStartsOver() throws {
        let yaml = """
            mode: sequence
            steps:
              - {expect: "HELLO", send: "WELCOME"}
              - {expect: "BYE", send: "CIAO"}
            """
        let script = try SimulatorScript.parse(yaml)
        try withSimulator(SimulatorConfiguration(personality: .script(script), terminator: .lf)) { sim, _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            try client.write("BYE\n")
            #expect(client.drain(seconds: 0.05).isEmpty)
            for _ in 0..<2 {
                try client.write("HELLO\n")
                #expect(try client.read(through: "\n") == "WELCOME\n")
                try client.write("BYE\n")
                #expect(try client.read(through: "\n") == "CIAO\n")
            }
        }
    }

    @Test func aBareListIsAScript() throws {
        let script = try SimulatorScript.parse("- expect: PING\n  send: PONG\n")
        #expect(script.steps == [SimulatorScript.Step(expect: "PING", send: ["PONG"], line: 1)])
        #expect(script.mode == .rules)
    }

    @Test(arguments: [
        ("steps:\n  - expect: A\n    sent: B\n", 3, "unknown key \"sent\""),
        ("steps:\n  - send: B\n", 2, "needs expect"),
        ("mode: random\nsteps: []\n", 1, "mode must be"),
        ("steps:\n  - expect: A\n    delay_ms: -3\n", 3, "delay_ms"),
        ("just text", 1, "expected a list"),
        ("colour: red\nsteps:\n  - expect: A\n", 1, "unknown key \"colour\""),
    ])
    func malformedScriptsAreRejectedWithTheirLine(yaml: String, line: Int, message: String) {
        #expect {
            _ = try SimulatorScript.parse(yaml, file: "bad.yaml")
        } throws: { error in
            guard case .script(let file, let l, let m) = error as? SimulatorError else { return false }
            return file == "bad.yaml" && l == line && m.contains(message)
        }
    }

    @Test func aMissingFileIsAnError() {
        #expect(throws: SimulatorError.self) { try SimulatorScript.load(path: "/nonexistent/script.yaml") }
    }
}
