import JSONCodec
import Testing

@testable import ControlProtocol

@Suite("JSON parser")
struct JSONParserTests {
    func parse(_ text: String) throws(JSONParseError) -> JSONValue {
        try JSONParser.parse(Array(text.utf8))
    }

    func parseError(_ bytes: [UInt8], depth: Int = 64) -> JSONParseError? {
        do {
            _ = try JSONParser.parse(bytes, options: JSONParser.Options(maxDepth: depth))
            return nil
        } catch {
            return error
        }
    }

    func parseError(_ text: String) -> JSONParseError? { parseError(Array(text.utf8)) }

    @Test(
        "valid documents",
        arguments: [
            ("null", JSONValue.null),
            ("true", .bool(true)),
            (" false ", .bool(false)),
            ("0", .integer(0)),
            ("-0", .integer(0)),
            ("42", .integer(42)),
            ("-9223372036854775808", .integer(.min)),
            ("9223372036854775807", .integer(.max)),
            ("1.5", .number(.double(1.5))),
            ("1.0", .number(.double(1.0))),
            ("-2.5e-3", .number(.double(-0.0025))),
            ("1E2", .number(.double(100))),
            ("\"\"", .string("")),
            ("\"a\\\"b\\\\c\\/d\\b\\f\\n\\r\\t\"", .string("a\"b\\c/d\u{8}\u{c}\n\r\t")),
            ("\"\\u0041\\u00e9\\u20AC\"", .string("Aé€")),
            ("\"\\ud83d\\ude00\"", .string("😀")),
            ("\"\\u0000\"", .string("\u{0}")),
            ("\"héllo wörld 😀\"", .string("héllo wörld 😀")),
            ("[]", .array([])),
            ("[1,[2,[3]]]", [1, [2, [3]]]),
            ("{}", .object([:])),
            ("\t{\r\n\"a\" : 1 , \"b\":[true,null]}\n", ["a": 1, "b": [true, nil]]),
        ] as [(String, JSONValue)]
    )
    func valid(text: String, expected: JSONValue) throws {
        #expect(try parse(text) == expected)
    }

    @Test("object members keep their order")
    func order() throws {
        let value = try parse(#"{"z":1,"a":2,"m":3}"#)
        #expect(value.objectValue?.keys == ["z", "a", "m"])
        #expect(value.description == #"{"z":1,"a":2,"m":3}"#)
    }

    @Test(
        "invalid documents with their positions",
        arguments: [
            ("", 0, "empty input"),
            ("   ", 3, "empty input"),
            ("{", 1, "unexpected end of input at column 2: expected a string key"),
            ("[1,]", 3, "unexpected character ']' at column 4"),
            ("[1 2]", 3, "expected ',' or ']'"),
            ("{\"a\" 1}", 5, "expected ':'"),
            ("{\"a\":1,}", 7, "expected a string key"),
            ("{a:1}", 1, "expected a string key"),
            ("{\"a\":1}x", 7, "unexpected data after the JSON value at column 8"),
            ("{} {}", 3, "unexpected data after the JSON value"),
            ("nul", 3, "unexpected end of input"),
            ("tru e", 3, "unexpected byte 0x20 at column 4"),
            ("NaN", 0, "expected a JSON value"),
            ("Infinity", 0, "expected a JSON value"),
            ("'a'", 0, "unexpected character '''"),
            ("01", 0, "leading zeros"),
            ("-", 1, "expected a digit after '-'"),
            ("-a", 1, "expected a digit after '-'"),
            ("+1", 0, "unexpected character '+'"),
            (".5", 0, "unexpected character '.'"),
            ("1.", 2, "expected a digit after '.'"),
            ("1e", 2, "expected a digit in the exponent"),
            ("1e+", 3, "expected a digit in the exponent"),
            ("0x10", 1, "unexpected data"),
            ("\"abc", 4, "unexpected end of input at column 5: expected '\"' to end the string"),
            ("\"a\nb\"", 2, "unescaped control character 0x0A"),
            ("\"a\tb\"", 2, "unescaped control character 0x09"),
            ("\"\\x\"", 1, "invalid escape '\\x'"),
            ("\"\\u12\"", 1, "'\\u' needs four hex digits"),
            ("\"\\u12G4\"", 1, "'\\u' needs four hex digits"),
            ("\"\\ud800\"", 1, "unpaired UTF-16 surrogate \\uD800"),
            ("\"\\udc00\"", 1, "unpaired UTF-16 surrogate \\uDC00"),
            ("\"\\ud800\\u0041\"", 1, "unpaired UTF-16 surrogate \\uD800"),
            ("\"\\ud800\\ud800\"", 1, "unpaired UTF-16 surrogate"),
            ("\"\\ude00\\ud83d\"", 1, "unpaired UTF-16 surrogate \\uDE00"),
            ("{\"id\":1,\"id\":2}", 8, "duplicate key \"id\" at column 9"),
        ] as [(String, Int, String)]
    )
    func invalid(text: String, offset: Int, message: String) {
        let error = parseError(text)
        #expect(error?.offset == offset, "\(text): \(String(describing: error))")
        #expect(error?.description.contains(message) == true, "\(text): \(String(describing: error))")
    }

    @Test(
        "invalid UTF-8 is rejected where it starts",
        arguments: [
            ([0x22, 0xFF, 0x22], 1),  // never valid
            ([0x22, 0xC0, 0xAF, 0x22], 1),  // overlong '/'
            ([0x22, 0xE0, 0x80, 0xAF, 0x22], 1),  // overlong
            ([0x22, 0xED, 0xA0, 0x80, 0x22], 1),  // encoded surrogate U+D800
            ([0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], 1),  // above U+10FFFF
            ([0x22, 0x61, 0xC3, 0x22], 2),  // truncated sequence
            ([0x22, 0x80, 0x22], 1),  // lone continuation
            ([0x22, 0x5C, 0x6E, 0xC3, 0x28, 0x22], 3),  // after an escape (slow path)
            ([0xEF, 0xBB, 0xBF, 0x31], 0),  // byte order mark
            ([0xFF], 0),  // outside any string
        ] as [([UInt8], Int)]
    )
    func invalidUTF8(bytes: [UInt8], offset: Int) {
        let error = parseError(bytes)
        #expect(error?.offset == offset)
        if bytes.first != 0xEF {
            guard case .invalidUTF8? = error?.kind else {
                Issue.record("expected invalidUTF8, got \(String(describing: error))")
                return
            }
        }
    }

    @Test("nesting is limited to the configured depth")
    func depth() throws {
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        #expect(try parse(ok).arrayValue != nil)
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(parseError(deep)?.kind == .tooDeep(limit: 64))
        #expect(parseError(deep)?.offset == 64)
        let objects = String(repeating: "{\"a\":", count: 65) + "1" + String(repeating: "}", count: 65)
        #expect(parseError(objects)?.kind == .tooDeep(limit: 64))
        // A megabyte of brackets fails fast and without deep recursion.
        let huge = [UInt8](repeating: UInt8(ascii: "["), count: 1 << 20)
        #expect(parseError(huge)?.kind == .tooDeep(limit: 64))
        #expect(parseError(Array("[[[1]]]".utf8), depth: 2)?.kind == .tooDeep(limit: 2))
    }

    @Test(
        "numbers beyond Int64 or Double are kept as their text, not rounded",
        arguments: [
            "18446744073709551616", "9223372036854775808", "-9223372036854775809", "1e400", "-1e400",
            "123456789012345678901234567890",
        ]
    )
    func hugeNumbers(text: String) throws {
        #expect(try parse(text) == .number(.outOfRange(text)))
        #expect(try parse(text).description == text)
    }

    @Test("tiny numbers underflow to zero as doubles")
    func tinyNumbers() throws {
        #expect(try parse("1e-400") == .number(.double(0)))
    }

    @Test("many keys: duplicate detection stays linear and still finds late duplicates")
    func manyKeys() throws {
        var text = "{"
        for index in 0..<5000 { text += "\"k\(index)\":\(index)," }
        let value = try parse(text + "\"last\":0}")
        #expect(value.objectValue?.count == 5001)
        let error = parseError(text + "\"k17\":0}")
        #expect(error?.kind == .duplicateKey("k17"))
    }

    @Test("duplicate keys can be allowed")
    func duplicatesAllowed() throws {
        let value = try JSONParser.parse(
            Array(#"{"a":1,"a":2}"#.utf8),
            options: JSONParser.Options(rejectDuplicateKeys: false)
        )
        #expect(value.objectValue?.count == 2)
        #expect(value["a"] == 1)
    }

    @Test("parses from slices and non-contiguous collections")
    func collections() throws {
        let bytes = Array("xx[1,2]yy".utf8)
        #expect(try JSONParser.parse(bytes[2..<7]) == [1, 2])
        #expect(try JSONParser.parse("[3]".utf8) == [3])
        #expect(try JSONParser.parse(Array("[4]".utf8).lazy.map { $0 }) == [4])
    }
}
