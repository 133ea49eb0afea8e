import AccessoryConfig
import Testing

@Suite("Configuration errors name file, line and key path")
struct ConfigErrorTests {
    @Test("the message format")
    func format() {
        let yaml = accessory("    serial:\n      baud: fast\n")
        #expect(errors(yaml) == [#"test.yaml:5: accessories[0].serial.baud: expected a positive integer, got "fast""#])
        #expect(throws: ConfigError.self) { try ConfigurationLoader.load(yaml: yaml, file: "test.yaml") }
    }

    @Test("simulator options are kept in order")
    func simulatorOptions() throws {
        let config = try #require(
            decodeConfig(
                "accessories:\n  - name: s\n    simulate: {personality: script, script: /x.txt, delay_ms: 5}\n"
            )
        )
        let expected = Simulation(
            personality: .script,
            options: [.init(key: "script", value: "/x.txt"), .init(key: "delay_ms", value: "5")]
        )
        #expect(config.accessories.first?.source == .simulate(expected))
    }

    @Test("unknown keys are errors, with a suggestion when one is close")
    func unknownKeys() {
        #expect(
            errors("sockets:\n  path: /x\n") == [
                "test.yaml:1: sockets: unknown key (did you mean \"socket\"?); expected one of: socket, limits, log, hotplug, threads, accessories"
            ]
        )
        #expect(
            errors(accessory("    serial:\n      baudrate: 9600\n")) == [
                "test.yaml:5: accessories[0].serial.baudrate: unknown key (did you mean \"baud\"?); expected one of: baud, data_bits, parity, stop_bits, flow, hangup_on_close"
            ]
        )
        let unrelated = errors(accessory("    colour: blue\n"))
        #expect(unrelated.count == 1)
        #expect(
            unrelated.first?.hasPrefix("test.yaml:4: accessories[0].colour: unknown key; expected one of: name, path,")
                == true
        )
        #expect(errors("limits: {max_line: 5}\n").first?.contains("(did you mean \"max_line_bytes\"?)") == true)
    }

    @Test("duplicate accessory names are errors naming both lines")
    func duplicateNames() {
        let yaml = """
            accessories:
              - name: modem
                path: /dev/ttyUSB0
              - name: gps
                path: /dev/ttyUSB1
              - name: modem
                path: /dev/ttyUSB2
            """
        #expect(
            errors(yaml) == [#"test.yaml:6: accessories[2].name: duplicate accessory name "modem" (lines 2 and 6)"#]
        )
    }

    @Test("two accessories on one device are an error")
    func duplicateDevices() {
        let yaml = "accessories:\n  - {name: a, path: /dev/x}\n  - {name: b, path: /dev/x}\n"
        #expect(errors(yaml) == [#"test.yaml:3: accessories[1].path: accessories "a" and "b" both use path /dev/x"#])
    }

    @Test("duplicate YAML keys are errors with the line")
    func duplicateKeys() {
        #expect(
            errors(accessory("    enabled: true\n    enabled: false\n")) == [
                #"test.yaml:4: duplicate key "enabled" in one mapping (each key may appear once)"#
            ]
        )
    }

    @Test("a missing or invalid name")
    func names() {
        #expect(
            errors("accessories:\n  - path: /dev/x\n") == [#"test.yaml:2: accessories[0]: missing required key "name""#]
        )
        #expect(
            errors("accessories:\n  - name: Modem!\n    path: /dev/x\n") == [
                #"test.yaml:2: accessories[0].name: expected a name of 1 to 64 characters from [a-z0-9_.-], got "Modem!""#
            ]
        )
    }

    @Test(
        "a name that is not a plain file name is an error (it names a file: the simulator's link)",
        arguments: [
            (#"".""#, #"expected a name that is a plain file name, got ".""#),
            (#""..""#, #"expected a name that is a plain file name, got "..""#),
            (#""a/b""#, #"expected a name of 1 to 64 characters from [a-z0-9_.-], got "a/b""#),
            (#""../x""#, #"expected a name of 1 to 64 characters from [a-z0-9_.-], got "../x""#),
            ("\"\"", "expected a name of 1 to 64 characters from [a-z0-9_.-], got \"\""),
            (#""a\0b""#, "expected a name of 1 to 64 characters from [a-z0-9_.-], got \"a\0b\""),
        ]
    )
    func namesThatAreNotFileNames(name: String, message: String) {
        let yaml = "accessories:\n  - path: /dev/x\n    name: \(name)\n"
        #expect(errors(yaml) == ["test.yaml:3: accessories[0].name: " + message])
    }

    @Test("a simulator option value or name starting with \"-\" is an error (it would be read as an option)")
    func simulatorOptionsStartingWithADash() {
        let yaml =
            "accessories:\n  - name: s\n    simulate:\n      personality: echo\n"
            + "      delay_ms: \"--link=/etc/x\"\n      -x: 1\n"
        #expect(
            errors(yaml) == [
                #"test.yaml:5: accessories[0].simulate.delay_ms: a simulator option value may not start with "-" (it would be read as an option), got "--link=/etc/x""#,
                #"test.yaml:6: accessories[0].simulate.-x: simulator option names are [a-z0-9_.-]+, not starting with "-""#,
            ]
        )
        #expect(errors("accessories:\n  - name: s\n    simulate: {personality: echo, delay_ms: 5}\n") == [])
    }

    @Test("every error is reported in one run, in file order")
    func allAtOnce() {
        let yaml = """
            limits: {max_clients: 0}
            accessories:
              - name: a
                path: /dev/a
                serial: {baud: fast, data_bits: 9}
              - name: b
                colour: red
            """
        let found = errors(yaml)
        #expect(found.count == 5, "\(found)")
        #expect(found.map { $0.split(separator: ":")[1] } == ["1", "5", "5", "6", "7"])
    }

    @Test("YAML syntax errors carry the line")
    func syntax() {
        let found = errors("limits:\n  max_clients: 5\n bad indentation: [\n")
        #expect(found.count == 1)
        #expect(found.first?.hasPrefix("test.yaml:3: YAML syntax error:") == true, "\(found)")
    }

    @Test("invalid UTF-8 names its line")
    func invalidUTF8() {
        let bytes = Array("log:\n  level: info\n# caf".utf8) + [0xC3, 0x28] + Array("\n".utf8)
        let (configuration, found) = ConfigurationLoader.check(bytes: bytes, file: "test.yaml")
        #expect(configuration == nil)
        #expect(found.map(\.description) == ["test.yaml:3: the file is not valid UTF-8"])
    }

    @Test("warnings do not stop a configuration")
    func warnings() throws {
        let yaml = accessory("    framing: {type: line, delimiter: '\\r\\n'}\n")
        let (configuration, found) = ConfigurationLoader.check(yaml: yaml, file: "test.yaml")
        #expect(configuration != nil)
        #expect(
            found.map(\.description) == [
                #"test.yaml:4: warning: accessories[0].framing.delimiter: contains a backslash: YAML turns \r and \n into control characters only in double quotes"#,
                #"test.yaml:4: warning: accessories[0].framing.terminator: contains a backslash: YAML turns \r and \n into control characters only in double quotes"#,
            ]
        )
        let slip = issues(accessory("    framing: {type: slip}\n    response: {until: '^x$'}\n"))
        #expect(slip.map(\.severity) == [.warning])
        #expect(slip.first?.keyPath == "accessories[0].response.until")
    }

    @Test("a configuration built in code is validated too, without lines")
    func builtInCode() {
        var config = Configuration(accessories: [AccessorySettings(name: "x", source: .path("/dev/x"))])
        #expect(validate(config).isEmpty)
        config.accessories[0].serial.baud = 0
        #expect(
            validate(config).map(\.description) == [
                "<built in code>: accessories[0].serial.baud: expected a positive integer, got 0"
            ]
        )
    }

    @Test("a hostile file cannot flood the output")
    func issueCap() {
        var yaml = "accessories:\n"
        for index in 0..<1_000 { yaml += "  - {name: n\(index), path: /dev/x\(index), bogus: 1, serial: {baud: 0}}\n" }
        let found = issues(yaml)
        #expect(found.count == ConfigurationLoader.maxIssues + 1)
        #expect(found.last?.description == "test.yaml: 1900 more issues not shown")
    }

    @Test("aliases are followed and quoted numbers are accepted as integers")
    func yamlFeatures() throws {
        let yaml = """
            accessories:
              - name: a
                path: /dev/a
                serial: &line {baud: "9600", parity: even}
              - name: b
                path: /dev/b
                serial: *line
            """
        let config = try #require(decodeConfig(yaml))
        #expect(config.accessories.map(\.serial.baud) == [9600, 9600])
        #expect(config.accessories[1].serial.parity == .even)
    }
}
