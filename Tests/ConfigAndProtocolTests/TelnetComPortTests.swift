import Testing

@testable import TelnetComPort

@Suite("Telnet and COM-PORT-OPTION")
struct TelnetComPortTests {
    private let iac = Telnet.iac

    @Test("a doubled IAC is one data byte 255, in any split of the stream")
    func doubledIAC() throws {
        let stream: [UInt8] = [1, iac, iac, 2, iac, iac]
        for cut in 0...stream.count {
            var parser = TelnetParser()
            var data: [UInt8] = []
            for part in [stream[..<cut], stream[cut...]] {
                for event in try parser.feed(part) {
                    guard case .data(let d) = event else {
                        Issue.record("unexpected \(event)")
                        continue
                    }
                    data += d
                }
            }
            #expect(data == [1, 255, 2, 255], "cut at \(cut)")
        }
    }

    @Test("negotiations and subnegotiations come out between the data around them")
    func ordering() throws {
        var parser = TelnetParser()
        let bytes: [UInt8] = [0x41, iac, Telnet.do, 0, 0x42, iac, Telnet.sb, 44, 5, iac, iac, iac, Telnet.se, 0x43]
        #expect(
            try parser.feed(bytes) == [
                .data([0x41]), .negotiation(.do, option: 0), .data([0x42]),
                .subnegotiation(option: 44, payload: [5, 255]), .data([0x43]),
            ]
        )
    }

    @Test("other commands (NOP, AYT, GA) are dropped")
    func otherCommands() throws {
        var parser = TelnetParser()
        #expect(try parser.feed([1, iac, 241, 2, iac, 246, iac, 249, 3]) == [.data([1, 2, 3])])
    }

    @Test("a subnegotiation that never ends is an error at the limit, not a growing buffer")
    func endlessSubnegotiation() throws {
        var parser = TelnetParser()
        _ = try parser.feed([iac, Telnet.sb, 44] + [UInt8](repeating: 7, count: TelnetParser.maxSubnegotiation))
        #expect(throws: TelnetProtocolError.subnegotiationTooLong(limit: TelnetParser.maxSubnegotiation)) {
            _ = try parser.feed([7])
        }
    }

    @Test("IAC and a command byte other than IAC or SE inside a subnegotiation is an error")
    func malformedSubnegotiation() throws {
        var parser = TelnetParser()
        #expect(throws: TelnetProtocolError.malformedSubnegotiation(Telnet.will)) {
            _ = try parser.feed([iac, Telnet.sb, 44, 1, iac, Telnet.will])
        }
    }

    @Test("BINARY, SGA and COM-PORT are agreed both ways; others refused; acknowledgements not answered")
    func negotiation() {
        var n = TelnetNegotiation()
        #expect(n.start() == [iac, Telnet.will, 0, iac, Telnet.do, 0, iac, Telnet.will, 3, iac, Telnet.do, 3])
        // The client's acknowledgements of the server's requests need no answer.
        #expect(n.receive(.do, option: 0) == [])
        #expect(n.receive(.will, option: 0) == [])
        #expect(n.isEnabled(0, ours: true) && n.isEnabled(0, ours: false))
        // COM-PORT-OPTION is the client's to offer.
        #expect(n.receive(.will, option: 44) == [iac, Telnet.do, 44])
        #expect(n.receive(.do, option: 44) == [iac, Telnet.will, 44])
        #expect(n.receive(.do, option: 44) == [], "already enabled: no answer, so no loop")
        #expect(n.comPortAgreed)
        // ECHO and anything else: refused.
        #expect(n.receive(.do, option: 1) == [iac, Telnet.wont, 1])
        #expect(n.receive(.will, option: 24) == [iac, Telnet.dont, 24])
        #expect(n.refusals == 2)
        // Switched off: confirmed once.
        #expect(n.receive(.dont, option: 0) == [iac, Telnet.wont, 0])
        #expect(n.receive(.dont, option: 0) == [])
    }

    @Test("each COM-PORT command decodes; wrong lengths and unknown codes do not")
    func commands() {
        #expect(ComPortRequest(payload: [1, 0, 1, 0xC2, 0]) == .setBaudRate(115_200))
        #expect(ComPortRequest(payload: [0]) == .signature([]))
        #expect(ComPortRequest(payload: [2, 8]) == .setDataSize(8))
        #expect(ComPortRequest(payload: [3, 1]) == .setParity(1))
        #expect(ComPortRequest(payload: [4, 2]) == .setStopSize(2))
        #expect(ComPortRequest(payload: [5, 8]) == .setControl(8))
        #expect(ComPortRequest(payload: [7]) == .notifyModemState)
        #expect(ComPortRequest(payload: [8]) == .flowControlSuspend)
        #expect(ComPortRequest(payload: [9]) == .flowControlResume)
        #expect(ComPortRequest(payload: [10, 0xFF]) == .setLineStateMask(0xFF))
        #expect(ComPortRequest(payload: [11, 0x30]) == .setModemStateMask(0x30))
        #expect(ComPortRequest(payload: [12, 1]) == .purgeData(1))
        #expect(ComPortRequest(payload: [1, 0, 1]) == nil)
        #expect(ComPortRequest(payload: [5]) == nil)
        #expect(ComPortRequest(payload: [13, 1]) == nil)
        #expect(ComPortRequest(payload: []) == nil)
    }

    @Test("replies carry the code plus 100, 255s in them doubled")
    func replies() {
        #expect(ComPortReply.baudRate(115_200) == [iac, Telnet.sb, 44, 101, 0, 1, 0xC2, 0, iac, Telnet.se])
        #expect(ComPortReply.baudRate(0xFF) == [iac, Telnet.sb, 44, 101, 0, 0, 0, iac, iac, iac, Telnet.se])
        #expect(ComPortReply.byte(12, 1) == [iac, Telnet.sb, 44, 112, 1, iac, Telnet.se])
    }

    @Test("modem state: the lines, and the changes since the last report")
    func modemState() {
        let cts = ComPortModemState.clearToSend
        let ri = ComPortModemState.ringIndicator
        #expect(ComPortModemState.byte(lines: cts | 0x01, previous: nil) == cts)
        #expect(ComPortModemState.byte(lines: cts, previous: 0) == cts | ComPortModemState.deltaClearToSend)
        #expect(ComPortModemState.byte(lines: 0, previous: ri) == ComPortModemState.trailingEdgeRing)
    }

    @Test("the server stream answers negotiations and hands over data and commands in order")
    func serverStream() throws {
        var stream = TelnetServerStream()
        var reply: [UInt8] = []
        let inputs = try stream.receive(
            [
                iac, Telnet.will, 44, 0x41, iac, Telnet.sb, 44, 5, 5, iac, Telnet.se, 0x42, iac, Telnet.sb, 1, 1, iac,
                Telnet.se,
            ],
            reply: &reply
        )
        #expect(reply == [iac, Telnet.do, 44])
        #expect(inputs == [.data([0x41]), .comPort(.setControl(5)), .data([0x42])])
        #expect(stream.ignoredSubnegotiations == 1)
    }

    @Test("data toward the client: every 255 doubled; without a 255 the same bytes")
    func encodeData() {
        var out: [UInt8] = [9]
        TelnetEncoder.data([1, 255, 2], into: &out)
        #expect(out == [9, 1, 255, 255, 2])
        #expect(TelnetEncoder.escaped([255, 255, 7, 255]) == [255, 255, 255, 255, 7, 255, 255])
        #expect(TelnetEncoder.escaped([1, 2, 3]) == [1, 2, 3])
    }

    @Test("runs of data between commands: the same events whether the stream comes whole or byte by byte")
    func runsMatchByteByByte() throws {
        // Streams of data runs, doubled IACs, negotiations, other commands and subnegotiations,
        // drawn from a fixed generator (the same streams every run).
        var state: UInt64 = 0x2217
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<200 {
            var stream: [UInt8] = []
            for _ in 0..<next(12) {
                switch next(5) {
                case 0: stream += (0..<next(40)).map { _ in UInt8(next(255)) }
                case 1: stream += [iac, iac]
                case 2: stream += [iac, Telnet.will, UInt8(next(50))]
                case 3: stream += [iac, 241]
                default: stream += [iac, Telnet.sb, 44, UInt8(next(13))] + [iac, iac, 3] + [iac, Telnet.se]
                }
            }
            var whole = TelnetParser()
            var bytewise = TelnetParser()
            let together = Self.joined(try whole.feed(stream))
            var pieces: [TelnetEvent] = []
            for byte in stream { pieces += try bytewise.feed([byte]) }
            #expect(together == Self.joined(pieces), "\(stream)")
        }
    }

    /// `events` with adjacent data joined (a split stream may cut one data run in two).
    private static func joined(_ events: [TelnetEvent]) -> [TelnetEvent] {
        var out: [TelnetEvent] = []
        for event in events {
            if case .data(let more) = event, case .data(let before)? = out.last {
                out[out.count - 1] = .data(before + more)
            } else {
                out.append(event)
            }
        }
        return out
    }
}
