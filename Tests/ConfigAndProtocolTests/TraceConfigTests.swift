import AccessoryConfig
import Testing

@Suite("Configuration: trace, with file, line and key path")
struct TraceConfigTests {
    @Test("the defaults, and every key")
    func defaultsAndKeys() throws {
        let plain = try #require(decodeConfig(accessory("    trace: {file: /var/log/a.trace}\n")))
        #expect(
            plain.accessories[0].trace
                == TraceSettings(file: "/var/log/a.trace", format: .text, maxBytes: 10 << 20, keep: 3)
        )
        let full = try #require(
            decodeConfig(accessory("    trace: {file: /var/log/a.trace, format: jsonl, max_bytes: 4096, keep: 0}\n"))
        )
        #expect(
            full.accessories[0].trace
                == TraceSettings(file: "/var/log/a.trace", format: .jsonl, maxBytes: 4_096, keep: 0)
        )
        #expect(try #require(decodeConfig(accessory(""))).accessories[0].trace == nil)
    }

    @Test(
        "wrong and impossible values",
        arguments: [
            (
                accessory("    trace: {format: text}\n"),
                #"test.yaml:4: accessories[0].trace: missing required key "file" (an absolute path for the trace file)"#
            ),
            (
                accessory("    trace: {file: logs/a.trace}\n"),
                #"test.yaml:4: accessories[0].trace.file: expected an absolute path, got "logs/a.trace""#
            ),
            (
                accessory("    trace: {file: /var/log/}\n"),
                #"test.yaml:4: accessories[0].trace.file: expected a file path, got a folder ("/var/log/")"#
            ),
            (
                accessory("    trace: {file: /t, format: hexdum}\n"),
                #"test.yaml:4: accessories[0].trace.format: expected one of text, hexdump, jsonl, got "hexdum" (did you mean "hexdump"?)"#
            ),
            (
                accessory("    trace: {file: /t, max_bytes: 100}\n"),
                "test.yaml:4: accessories[0].trace.max_bytes: expected a byte count from 1024 to 1099511627776, got 100"
            ),
            (
                accessory("    trace:\n      file: /t\n      keep: -1\n"),
                "test.yaml:6: accessories[0].trace.keep: expected an integer from 0 to 1000, got -1"
            ),
            (
                accessory("    trace: {file: /t, rotate: daily}\n"),
                "test.yaml:4: accessories[0].trace.rotate: unknown key; expected one of: file, format, max_bytes, keep"
            ),
        ]
    )
    func wrongValues(yaml: String, expected: String) {
        #expect(errors(yaml) == [expected])
    }

    @Test("two accessories cannot share a trace file")
    func sharedFile() {
        let yaml = """
            accessories:
              - {name: a, path: /dev/ttyUSB0, trace: {file: /var/log/t}}
              - {name: b, path: /dev/ttyUSB1, trace: {file: /var/log/t}}
            """
        #expect(
            errors(yaml) == [
                #"test.yaml:3: accessories[1].trace.file: accessories "a" and "b" both trace to /var/log/t"#
            ]
        )
    }
}
