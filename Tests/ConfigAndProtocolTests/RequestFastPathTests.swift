import JSONCodec
import Testing

@testable import ControlProtocol

/// The one-pass decoder of `transact` and `write` against the general decoder (the JSON tree,
/// then the request's checks): it must answer the common requests, and wherever it answers, the
/// general decoder must accept the line and decode the same request.
@Suite("Request decoding: the fast path for transact and write")
struct RequestFastPathTests {
    func fast(_ text: String) -> Request? {
        Array(text.utf8).withUnsafeBufferPointer { Request.decodeFastPath($0) }
    }

    func general(_ text: String) -> Request? {
        (try? JSONParser.parse(Array(text.utf8))).flatMap { value in try? Request.decode(value) }
    }

    /// Checks agreement on `text`; returns whether the fast path answered.
    @discardableResult
    func agree(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
        guard let request = fast(text) else { return false }
        #expect(general(text) == request, "\(text)", sourceLocation: sourceLocation)
        return true
    }

    @Test("one connection's name cache gives each request its own device, as the general decoder reads it")
    func deviceNamesAcrossRequests() {
        var names = DeviceNames()
        // The same name twice (from the cache), other short names, a name of exactly eight
        // bytes, a long one (never cached) and an escaped one in between.
        let devices = [
            "echo", "echo", "m", "gps0", "eightchr", "echo", "a-much-longer-name", "echo", #"e\u0063ho"#, "gps0",
        ]
        for (id, device) in devices.enumerated() {
            let line = #"{"jsonrpc":"2.0","id":\#(id),"method":"transact","params":{"device":"\#(device)","data":"x"}}"#
            let request = Array(line.utf8).withUnsafeBufferPointer { Request.decodeFastPath($0, names: &names) }
            #expect(request != nil, "\(line)")
            #expect(request == general(line), "\(line)")
        }
        // An empty name is refused on the fast path, cached or not (the general decoder says why).
        let empty = #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"","data":"x"}}"#
        #expect(Array(empty.utf8).withUnsafeBufferPointer { Request.decodeFastPath($0, names: &names) } == nil)
    }

    @Test("the common requests go the fast way, decoded as the general decoder does")
    func commonRequests() {
        let lines = [
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"echo","data":"k0s1............"}}"#,
            #"{"jsonrpc":"2.0","id":"a-7","method":"write","params":{"device":"echo","data":"x"}}"#,
            #"{"method":"transact","params":{"data_base64":"AAEC/w==","device":"mcu","wait_ms":0},"id":-3,"jsonrpc":"2.0"}"#,
            #" { "jsonrpc" : "2.0" , "id" : 9 , "method" : "transact" , "params" : { "device" : "m" , "data" : "AT\r\n" , "timeout_ms" : 500 } } "#
                + "\r",
            #"{"jsonrpc":"2.0","id":4,"method":"transact","params":{"device":"m","data":"\u00e9\ud83d\ude00\"\\"}}"#,
            #"{"jsonrpc":"2.0","id":5,"method":"write","params":{"device":"m","data":"","timeout_ms":86400000,"wait_ms":86400000}}"#,
        ]
        for line in lines {
            #expect(agree(line), "the fast path did not answer \(line)")
        }
        #expect(
            fast(lines[0])
                == Request(
                    id: .int(1),
                    method: .transact(TransferParams(device: "echo", data: Array("k0s1............".utf8)))
                )
        )
    }

    @Test(
        "the version and the method are compared as words and, escaped, as text: each agrees with the general decoder"
    )
    func valueWords() {
        func line(_ version: String, _ method: String) -> String {
            #"{"jsonrpc":""# + version + #"","id":1,"method":""# + method
                + #"","params":{"device":"e","data":"x"}}"#
        }
        // Taken: as words, and escaped (read as text, compared as text).
        for (version, method) in [
            ("2.0", "transact"), ("2.0", "write"), (#"2\u002e0"#, #"tr\u0061nsact"#), ("2.0", #"writ\u0065"#),
        ] {
            #expect(agree(line(version, method)), "\(version) \(method)")
        }
        // Near misses, one byte shorter or longer than a word, or another value: left to the
        // general decoder, which refuses them.
        for (version, method) in [
            ("2.0", "transac"), ("2.0", "transacts"), ("2.0", "writes"), ("2.00", "write"), ("2.", "write"),
            ("2.0", ""),
        ] {
            #expect(fast(line(version, method)) == nil, "\(version) \(method)")
            #expect(general(line(version, method)) == nil, "\(version) \(method)")
        }
    }

    @Test("integer ids, short and long, agree with the general decoder; what is not one is left to it")
    func integerIDs() {
        func line(_ id: String) -> String {
            #"{"jsonrpc":"2.0","id":"# + id + #","method":"write","params":{"device":"e","data":"x"}}"#
        }
        for id in ["0", "7", "42", "123456789012345678", "1234567890123456789", "9223372036854775807", "-5", "-0"] {
            #expect(agree(line(id)), "\(id)")
            #expect(fast(line(id))?.id == .int(Int64(id)!), "\(id)")
        }
        for id in ["01", "00", "1.0", "1e2", "1E2", "2.", "9223372036854775808", "1x"] {
            #expect(fast(line(id)) == nil, "\(id)")
        }
        #expect(agree(#"{"jsonrpc":"2.0","id":12 ,"method":"write","params":{"device":"e","data":"x"}}"#))
    }

    @Test("what the general decoder refuses or reads otherwise is left to it")
    func leftToTheGeneralDecoder() {
        let lines = [
            #"{"jsonrpc":"2.0","id":1,"method":"read","params":{"device":"echo"}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"echo","data":"x","timeout_ms":null}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"echo","data":"x","data_base64":"eA=="}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"echo"}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"","data":"x"}}"#,
            #"{"jsonrpc":"2.0","id":1,"id":2,"method":"transact","params":{"device":"e","data":"x"}}"#,
            #"{"jsonrpc":"2.0","id":1.5,"method":"transact","params":{"device":"e","data":"x"}}"#,
            #"{"jsonrpc":"2.0","id":99999999999999999999,"method":"transact","params":{"device":"e","data":"x"}}"#,
            #"{"jsonrpc":"2.0","id":null,"method":"transact","params":{"device":"e","data":"x"}}"#,
            #"{"jsonrpc":"2.0","method":"transact","params":{"device":"e","data":"x"}}"#,
            #"{"jsonrpc":"1.0","id":1,"method":"transact","params":{"device":"e","data":"x"}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"e","data":"x","timeout_ms":0}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"e","data":"x","wait_ms":-1}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"e","data":"x","timeout_ms":86400001}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"e","data_base64":"eA="}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"e","data":"x","extra":1}}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"e","data":"x"},"extra":1}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"e","data":"x"}} x"#,
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":[]}"#,
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"e","data":"x"}"#,
            #"[{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"e","data":"x"}}]"#,
            "",
        ]
        for line in lines {
            #expect(fast(line) == nil, "the fast path answered \(line)")
        }
        // Every prefix of a valid request (found by the fuzzer: the line ending after `"id":`).
        let whole = #"{"jsonrpc":"2.0","id":12,"method":"transact","params":{"device":"e","data":"x","timeout_ms":5}}"#
        for end in 0..<whole.utf8.count {
            #expect(fast(String(decoding: whole.utf8.prefix(end), as: UTF8.self)) == nil)
        }
    }

    @Test("generated and mutated lines: wherever the fast path answers, the general decoder agrees")
    func generatedAndMutated() {
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        func next(_ bound: Int) -> Int {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            return Int(state % UInt64(bound))
        }
        func pick(_ options: [String]) -> String { options[next(options.count)] }
        let spaces = ["", " ", "\t", "\n ", "\r"]
        var shuffler = Generator(next)
        var answered = 0
        for _ in 0..<4_000 {
            var params = [
                "\"device\":" + pick(["\"echo\"", "\"\"", "\"e\\u0063ho\"", "1", "null"]),
                pick([
                    "\"data\":\"k0s1....\"", "\"data\":\"\\u00e9\\n\"", "\"data_base64\":\"AAEC/w==\"",
                    "\"data_base64\":\"AAE\"", "\"data\":5",
                ]),
            ]
            if next(3) == 0 {
                params.append("\"timeout_ms\":" + pick(["1", "0", "500", "86400000", "86400001", "-0", "1e2", "null"]))
            }
            if next(3) == 0 { params.append("\"wait_ms\":" + pick(["0", "-0", "10", "-1", "2.5"])) }
            if next(8) == 0 { params.append(pick(["\"device\":\"x\"", "\"extra\":true", "\"data\":\"y\""])) }
            var members = [
                "\"jsonrpc\":" + pick(["\"2.0\"", "\"2.0\"", "\"2.1\""]),
                "\"id\":"
                    + pick(["1", "-7", "\"s\"", "\"\\u0031\"", "1.0", "9223372036854775807", "9223372036854775808"]),
                "\"method\":" + pick(["\"transact\"", "\"write\"", "\"read\"", "\"tr\\u0061nsact\""]),
                "\"params\":{" + params.shuffled(using: &shuffler).joined(separator: pick([",", " , "])) + "}",
            ]
            if next(10) == 0 { members.removeLast() }
            if next(10) == 0 { members.append(pick(["\"id\":2", "\"x\":{}"])) }
            var text =
                pick(spaces) + "{" + members.shuffled(using: &shuffler).joined(separator: ",") + "}" + pick(spaces)
            if next(4) == 0 {
                // A byte changed, removed or added somewhere.
                var bytes = Array(text.utf8)
                let at = next(bytes.count)
                switch next(3) {
                case 0: bytes[at] = UInt8(truncatingIfNeeded: next(256))
                case 1: bytes.remove(at: at)
                default: bytes.insert(pick(["{", "}", "\"", ",", ":", "\\", " "]).utf8.first!, at: at)
                }
                text = String(decoding: bytes, as: UTF8.self)
            }
            if agree(text) { answered += 1 }
        }
        // About one line in twenty-five is a valid transact or write with nothing the fast path
        // leaves to the general decoder: it must have answered those, not declined everything.
        #expect(answered > 80, "the fast path answered \(answered) of 4000")
    }
}

/// A random number generator over a closure (for `shuffled(using:)`). A value; one thread.
private struct Generator: RandomNumberGenerator {
    let draw: (Int) -> Int
    init(_ draw: @escaping (Int) -> Int) { self.draw = draw }
    mutating func next() -> UInt64 { UInt64(truncatingIfNeeded: draw(Int.max)) &* 0x9E37_79B9_7F4A_7C15 }
}
