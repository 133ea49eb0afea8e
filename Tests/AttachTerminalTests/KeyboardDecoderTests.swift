import AttachTerminal
import Testing

/// The escape key and its commands, byte by byte as a terminal delivers them.
///
/// Threading: each test on its own thread, with values only.
@Suite struct KeyboardDecoderTests {
    private let ctrlT: UInt8 = 0x14

    @Test func keysPassThroughAsTypedCtrlCIncluded() {
        var decoder = KeyboardDecoder(escape: .standard)
        #expect(
            decoder.feed(Array("AT\r".utf8) + [0x03, 0x04, 0x1B]) == [.send(Array("AT\r".utf8) + [0x03, 0x04, 0x1B])]
        )
    }

    @Test func theKeyAfterTheEscapeIsACommandEvenInALaterRead() {
        var decoder = KeyboardDecoder(escape: .standard)
        #expect(decoder.feed([0x61, ctrlT]) == [.send([0x61])])
        #expect(decoder.awaitingCommand)
        #expect(decoder.feed(Array("q".utf8)) == [.command(.quit)])
        #expect(!decoder.awaitingCommand)
        #expect(decoder.feed(Array("q".utf8)) == [.send(Array("q".utf8))])
    }

    @Test func everyCommandHasItsKey() {
        let expected: [(String, EscapeCommand)] = [
            ("q", .quit), ("?", .help), ("b", .sendBreak), ("d", .toggleDTR), ("r", .toggleRTS),
            ("h", .toggleHex), ("t", .toggleTimestamps), ("l", .toggleLog), ("s", .statistics),
        ]
        for (key, command) in expected {
            var decoder = KeyboardDecoder(escape: .standard)
            #expect(decoder.feed([ctrlT] + Array(key.utf8)) == [.command(command)], "key \(key)")
        }
    }

    @Test func theEscapeKeyTwiceSendsItOnceAndCommandsSplitTheBytesAround() {
        var decoder = KeyboardDecoder(escape: .standard)
        #expect(decoder.feed([0x41, ctrlT, ctrlT, 0x42]) == [.send([0x41, ctrlT, 0x42])])
        #expect(
            decoder.feed([0x41, ctrlT, UInt8(ascii: "h"), 0x42, ctrlT, UInt8(ascii: "x")])
                == [.send([0x41]), .command(.toggleHex), .send([0x42]), .unknown(UInt8(ascii: "x"))]
        )
    }

    @Test func anotherEscapeKeyLeavesCtrlTToTheDevice() throws {
        var decoder = KeyboardDecoder(escape: try EscapeKey(parsing: "ctrl-a"))
        #expect(decoder.feed([ctrlT, 0x01, UInt8(ascii: "q")]) == [.send([ctrlT]), .command(.quit)])
    }

    @Test func theHelpNamesEveryKey() {
        let help = KeyboardDecoder(escape: .standard).help.joined(separator: "\n")
        #expect(help.hasPrefix("Ctrl-T then:"))
        for command in EscapeCommand.allCases {
            #expect(help.contains("  \(command.key)  \(command.summary)"), "\(command)")
        }
        #expect(help.contains("Ctrl-T  send Ctrl-T itself"))
    }

    @Test func escapeKeysParseAndBadOnesAreExplained() throws {
        #expect(try EscapeKey(parsing: "ctrl-t") == .standard)
        #expect(try EscapeKey(parsing: "Ctrl-A").byte == 0x01)
        #expect(try EscapeKey(parsing: "^Z").byte == 0x1A)
        #expect(try EscapeKey(parsing: "ctrl-b").description == "Ctrl-B")
        for bad in ["t", "ctrl-", "ctrl-tt", "ctrl-1", "alt-t"] {
            #expect(throws: EscapeKeyError.self, "\(bad)") { try EscapeKey(parsing: bad) }
        }
        #expect(throws: EscapeKeyError.self) { try EscapeKey(parsing: "ctrl-m") }
        do {
            _ = try EscapeKey(parsing: "ctrl-j")
            Issue.record("ctrl-j accepted")
        } catch {
            #expect(error.description.contains("Enter"))
        }
    }
}
