import AccessorySimulator
import Testing

/// Each personality, driven through the pty slave as a client would.
///
/// Threading: each test runs on its test thread and owns a spawned loop, its accessory and its pty.
@Suite struct PersonalityTests {
    @Test(arguments: [
        (LineTerminator.lf, "\n"), (LineTerminator.crlf, "\r\n"), (LineTerminator.cr, "\r"),
    ])
    func echoWritesEachLineBackWithItsTerminator(terminator: LineTerminator, end: String) throws {
        try withSimulator(SimulatorConfiguration(terminator: terminator)) { sim, _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            try client.write("hello" + end)
            #expect(try client.read(through: "hello" + end) == "hello" + end)
            // Two lines in one write, then one line in three writes.
            try client.write("a b" + end + "c" + end)
            #expect(try client.read(through: "c" + end) == "a b" + end + "c" + end)
            try client.write("spl")
            try client.write("it")
            #expect(client.drain(seconds: 0.05).isEmpty)
            try client.write(end)
            #expect(try client.read(through: "split" + end) == "split" + end)
        }
    }

    @Test func echoWithNoTerminatorIsARawByteEcho() throws {
        try withSimulator(SimulatorConfiguration(terminator: .none)) { sim, _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            let bytes: [UInt8] = [0, 1, 0x0A, 0xFF, 0x0D, 42]
            try client.write(bytes)
            #expect(try client.read(count: bytes.count) == bytes)
        }
    }

    @Test func atModemGivesFinalResultsAndMultiLineAnswers() throws {
        try withSimulator(SimulatorConfiguration(personality: .atModem)) { sim, _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            func ask(_ command: String, final: String) throws -> [String] {
                try client.write(command + "\r")
                let text = try client.read(through: "\r\n\(final)\r\n")
                // Every line is framed as \r\n<line>\r\n.
                #expect(text.hasPrefix("\r\n"))
                return text.split(separator: "\r\n").map(String.init)
            }
            #expect(try ask("AT", final: "OK") == ["OK"])
            let identity = try ask("ATI", final: "OK")
            #expect(identity.count == 5)
            #expect(identity.first == "Manufacturer: AccessorySim")
            #expect(try ask("AT+CSQ", final: "OK") == ["+CSQ: 23,99", "OK"])
            #expect(try ask("AT+CGMI", final: "OK") == ["AccessorySim", "OK"])
            #expect(try ask("AT+CPIN?", final: "OK") == ["+CPIN: READY", "OK"])
            #expect(try ask("AT+CMGR=99", final: "+CME ERROR: 321") == ["+CME ERROR: 321"])
            #expect(try ask("AT+CMGR=1", final: "OK").count == 3)
            #expect(try ask("AT+NOPE", final: "ERROR") == ["ERROR"])
            // \n and \r\n line ends are accepted too, and ATE1 echoes commands.
            try client.write("ATE1\r\n")
            #expect(try client.read(through: "\r\nOK\r\n") == "\r\nOK\r\n")
            try client.write("AT\n")
            #expect(try client.read(through: "\r\nOK\r\n") == "AT\n\r\nOK\r\n")
        }
    }

    @Test func atModemSendsUnsolicitedRingAndCMTI() throws {
        let c = SimulatorConfiguration(personality: .atModem, unsolicitedInterval: .milliseconds(30))
        try withSimulator(c) { sim, _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            let text = try client.read(seconds: 5) { String(decoding: $0, as: UTF8.self).contains("+CMTI") }
            let lines = String(decoding: text, as: UTF8.self).split(separator: "\r\n")
            #expect(lines.contains("RING"))
            let cmti = lines.first { $0.hasPrefix("+CMTI: \"SM\",") }
            #expect(cmti != nil)
            // The announced message can be read.
            let index = cmti!.split(separator: ",").last!
            try client.write("AT+CMGR=\(index)\r")
            #expect(try client.read(through: "\r\nOK\r\n").contains("+CMGR:"))
        }
    }

    @Test func atModemHonoursTheResponseDelay() throws {
        try withSimulator(SimulatorConfiguration(personality: .atModem, responseDelay: .milliseconds(200))) { sim, _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            let start = SlaveClient.now()
            try client.write("AT\r")
            #expect(client.drain(seconds: 0.1).isEmpty)
            #expect(try client.read(through: "OK\r\n") == "\r\nOK\r\n")
            #expect(SlaveClient.now() - start >= 0.19)
        }
    }

    @Test func nmeaStreamsGGAAndRMCWithValidChecksumsAndIgnoresInput() throws {
        try withSimulator(SimulatorConfiguration(personality: .nmea, unsolicitedInterval: .milliseconds(20))) {
            sim,
            _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            try client.write("hello\r\n")
            let bytes = try client.read(seconds: 5) { b in
                String(decoding: b, as: UTF8.self).components("\r\n").filter { $0.hasPrefix("$GPRMC") }.count >= 3
            }
            let text = String(decoding: bytes, as: UTF8.self)
            #expect(!text.contains("hello"))
            let sentences = text.components("\r\n").filter { $0.hasPrefix("$") }
            #expect(sentences.contains { $0.hasPrefix("$GPGGA,") })
            for s in sentences { #expect(NMEASentence.isValid(s), "\(s)") }
            // Each fix is GGA then RMC; the clock advances.
            let times = sentences.filter { $0.hasPrefix("$GPRMC") }.map { $0.split(separator: ",")[1] }
            #expect(Set(times).count == times.count)
        }
    }

    @Test func nmeaAnswersMediaTekCommandsBetweenFixes() throws {
        try withSimulator(SimulatorConfiguration(personality: .nmea, unsolicitedInterval: .milliseconds(30))) {
            sim,
            _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            try client.write(NMEASentence.frame("PMTK220,1000") + "$PMTK605*31\r\n$PMTK314,1*00\r\n$PMTK1\r\n")
            let bytes = try client.read(seconds: 5) { b in
                String(decoding: b, as: UTF8.self).contains("$PMTK001,314,0")
            }
            let lines = String(decoding: bytes, as: UTF8.self).components("\r\n")
            let answers = lines.filter { $0.hasPrefix("$PMTK") }
            #expect(
                answers
                    == [
                        NMEASentence.frame("PMTK001,220,3"),
                        NMEASentence.frame("PMTK705,AXN_5.1.7_3333_01,0001,AccessorySim,1.0"),
                        NMEASentence.frame("PMTK001,314,0"),
                    ].map { $0.components("\r\n")[0] }
            )
            for a in answers { #expect(NMEASentence.isValid(a), "\(a)") }
        }
    }

    @Test(arguments: [Framing.slip, Framing.cobs])
    func framedEchoesEachFrameReEncoded(framing: Framing) throws {
        try withSimulator(SimulatorConfiguration(personality: .framed(framing))) { sim, _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            let payloads: [[UInt8]] = [[1, 2, 3], [0xC0, 0xDB, 0x00, 0xDC], [0, 0], Array(0...255)]
            for p in payloads {
                // Send the frame in two pieces to exercise the simulator's stream decoder.
                let encoded = framing == .slip ? SLIPCodec.encode(p) : COBSCodec.encode(p)
                try client.write(Array(encoded.prefix(2)))
                try client.write(Array(encoded.dropFirst(2)))
                let delimiter: UInt8 = framing == .slip ? SLIPCodec.end : 0
                let needed = framing == .slip ? 2 : 1
                let reply = try client.read { $0.filter { $0 == delimiter }.count >= needed }
                var slip = SLIPCodec.Decoder()
                var cobs = COBSCodec.Decoder()
                let frames = framing == .slip ? slip.feed(reply) : cobs.feed(reply)
                #expect(frames == [p])
            }
        }
    }
}
