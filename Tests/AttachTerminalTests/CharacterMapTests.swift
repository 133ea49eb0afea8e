import AttachTerminal
import Testing

/// `--map`: tio's rules, both ways, and the combinations that make no sense.
///
/// Threading: each test on its own thread, with values only.
@Suite struct CharacterMapTests {
    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    @Test func withoutRulesNothingChanges() {
        let all: [UInt8] = Array(0...255)
        #expect(CharacterMap.none.toDevice(all) == all)
        #expect(CharacterMap.none.toScreen(all) == all)
    }

    @Test func outputRulesChangeWhatIsSent() throws {
        #expect(try CharacterMap(parsing: "crlf").toDevice(bytes("ATI\r")) == bytes("ATI\r\n"))
        #expect(try CharacterMap(parsing: "ocrnl").toDevice(bytes("ATI\r")) == bytes("ATI\n"))
        #expect(try CharacterMap(parsing: "onlcr").toDevice(bytes("a\nb")) == bytes("a\r\nb"))
        #expect(try CharacterMap(parsing: "onlcrnl").toDevice(bytes("a\n")) == bytes("a\r\n"))
        #expect(try CharacterMap(parsing: "odelbs").toDevice([0x61, 0x7F]) == [0x61, 0x08])
        // Each rule applies to the result of the one before, as in tio: CR → LF → CR LF.
        #expect(try CharacterMap(parsing: "ocrnl,onlcr").toDevice(bytes("\r")) == bytes("\r\n"))
        // Output rules leave the screen alone, and the other way round.
        #expect(try CharacterMap(parsing: "crlf,onlcr,odelbs").toScreen(bytes("\r\n\u{7F}")) == bytes("\r\n\u{7F}"))
        #expect(try CharacterMap(parsing: "icrnl,inlcrnl").toDevice(bytes("\r\n")) == bytes("\r\n"))
    }

    @Test func inputRulesChangeWhatIsShown() throws {
        #expect(try CharacterMap(parsing: "icrnl").toScreen(bytes("OK\r")) == bytes("OK\n"))
        #expect(try CharacterMap(parsing: "igncr").toScreen(bytes("OK\r\n")) == bytes("OK\n"))
        #expect(try CharacterMap(parsing: "inlcr").toScreen(bytes("OK\n")) == bytes("OK\r"))
        #expect(try CharacterMap(parsing: "inlcrnl").toScreen(bytes("OK\n")) == bytes("OK\r\n"))
        #expect(try CharacterMap(parsing: "icrnl,inlcrnl").toScreen(bytes("a\rb")) == bytes("a\r\nb"))
    }

    @Test func namesAreCheckedAndClashesRefused() throws {
        #expect(try CharacterMap(parsing: " ICRNL , onlcr").rules == [.icrnl, .onlcr])
        for bad in ["", "crlf,", "lfcr", "icrnl;onlcr"] {
            #expect(throws: CharacterMapError.self, "\(bad)") { try CharacterMap(parsing: bad) }
        }
        for clash in ["ocrnl,crlf", "inlcr,inlcrnl", "icrnl,igncr"] {
            #expect(throws: CharacterMapError.self, "\(clash)") { try CharacterMap(parsing: clash) }
        }
        do {
            _ = try CharacterMap(parsing: "crfl")
            Issue.record("crfl accepted")
        } catch {
            #expect(error.description.contains("'crfl'"))
            #expect(error.description.contains("crlf"))
        }
    }
}
