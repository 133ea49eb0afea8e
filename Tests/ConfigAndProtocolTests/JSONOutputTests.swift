import JSONCodec
import Testing

@testable import ControlProtocol

@Suite("JSON serializer")
struct JSONOutputTests {
    func text(_ value: JSONValue) -> String { value.description }

    @Test("compact output")
    func compact() {
        let value: JSONValue = ["a": [1, -2, 1.5, true, false, nil], "b": "x", "c": [:]]
        #expect(text(value) == #"{"a":[1,-2,1.5,true,false,null],"b":"x","c":{}}"#)
    }

    @Test("strings: quotes, backslashes and every control character are escaped")
    func escapes() {
        #expect(text("a\"b\\c") == #""a\"b\\c""#)
        #expect(text("\n\r\t\u{8}\u{c}") == #""\n\r\t\b\f""#)
        #expect(text("\u{0}\u{1}\u{1f}\u{7f}") == #""\u0000\u0001\u001f"# + "\u{7f}\"")
        #expect(text("/é😀") == "\"/é😀\"")
        for scalar in 0..<0x20 {
            let encoded = text(.string(String(Character(Unicode.Scalar(UInt8(scalar))))))
            #expect(!encoded.utf8.contains { $0 < 0x20 })
        }
    }

    @Test("integers exact, including the extremes")
    func integers() {
        for value: Int64 in [0, 7, 10, -1, -10, 1_234_567_890, .max, .min] {
            #expect(text(.integer(value)) == String(value))
        }
    }

    @Test("doubles: shortest round-trip form; non-finite as null")
    func doubles() throws {
        #expect(text(.number(.double(0.1))) == "0.1")
        #expect(text(.number(.double(1e20))) == "1e+20")
        #expect(text(.number(.double(.infinity))) == "null")
        #expect(text(.number(.double(.nan))) == "null")
        for value in [0.1, 1e20, Double.leastNonzeroMagnitude, -2.5, 1.0, 123_456.789] {
            #expect(try JSONParser.parse(Array(text(.number(.double(value))).utf8)) == .number(.double(value)))
        }
    }

    @Test("out-of-range literals are written verbatim only when they are valid numbers")
    func outOfRange() {
        #expect(text(.number(.outOfRange("1e400"))) == "1e400")
        #expect(text(.number(.outOfRange("12abc"))) == "null")
        #expect(text(.number(.outOfRange(""))) == "null")
    }

    @Test("round trips: parse(write(v)) == v and write(parse(t)) == t for compact t")
    func roundTrips() throws {
        let documents = [
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"modem","data":"AT\r"}}"#,
            #"[1,-1,0.5,"x",true,false,null,{},[],{"a":{"b":[{"c":"\u0000"}]}}]"#,
            #""\ud83d\ude00 é \\ \" \/""#,
            #"{"big":18446744073709551616,"small":-9223372036854775808}"#,
        ]
        for document in documents {
            let value = try JSONParser.parse(Array(document.utf8))
            let written = value.description
            #expect(try JSONParser.parse(Array(written.utf8)) == value)
        }
        let compact = #"{"a":[1,2.5,"x\n"],"b":null}"#
        #expect(try JSONParser.parse(Array(compact.utf8)).description == compact)
    }

    @Test("output is valid UTF-8 for any string")
    func validUTF8() {
        let strings = ["", "plain", "\u{0}\u{FFFF}\u{10FFFF}", String(repeating: "é😀\n", count: 100)]
        for string in strings {
            var buffer: [UInt8] = []
            JSONOutput.appendString(string, to: &buffer)
            #expect(UTF8Validation.isValid(buffer))
        }
    }

    @Test("appends to an existing buffer")
    func appends() {
        var buffer = Array("prefix:".utf8)
        JSONValue.array([1, "a"]).encodeJSON(into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == #"prefix:[1,"a"]"#)
    }
}
