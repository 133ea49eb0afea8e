import JSONCodec

/// The common requests, `transact` and `write`, decoded in one pass over the line, without the
/// general decoder's tree of ``JSONValue``s.
///
/// Why: building, walking and freeing that tree was about a quarter of the daemon's instructions
/// per `transact`. The fast path accepts only a well-formed `transact` or `write` whose members
/// are exactly those the general decoder accepts; anything else (another method, a `null`
/// member, a duplicate, an error of any kind) makes it answer `nil`, and the general decoder
/// (``Request/decode(_:maxDepth:)``) decides, with its messages. It uses the same parser for
/// strings and numbers, so escapes, UTF-8 and number edge cases are read the same way. The tests
/// and the json-rpc fuzzer hold it to the general decoder: wherever it answers, the answers are
/// equal.
///
/// Threading: stateless. Any thread.
extension Request {
    /// The request on `line`, if it is a valid `transact` or `write` the fast path reads;
    /// otherwise `nil` (which says nothing about the line: use the general decoder).
    package static func decodeFastPath(_ line: UnsafeBufferPointer<UInt8>) -> Request? {
        var names = DeviceNames()
        return decodeFastPath(line, names: &names)
    }

    /// ``decodeFastPath(_:)`` with the device name of the last request kept in `names`: a
    /// connection's requests name the same accessory again and again, and making its `String`
    /// anew cost about 250 instructions a request.
    package static func decodeFastPath(_ line: UnsafeBufferPointer<UInt8>, names: inout DeviceNames) -> Request? {
        var parser = JSONParser(bytes: line, options: JSONParser.Options())
        do throws(JSONParseError) {
            return try parser.fastRequest(names: &names)
        } catch {
            return nil
        }
    }
}

/// The last device name the fast path read from one source of requests (a connection), kept
/// with its bytes as a word (names of up to eight plain bytes, as ``JSONParser`` `fastKey`
/// reads them): the same name in the next request is the same `String`, not made again.
///
/// Threading: a value, owned by its connection. Control loop.
package struct DeviceNames {
    private var word: UInt64 = 0
    private var name = ""

    package init() {}

    /// The name whose bytes are `word` (`length` of them), made once for a run of requests.
    mutating func name(word: UInt64, length: Int) -> String {
        if word == self.word && word != 0 { return name }
        self.word = word
        name = withUnsafeBytes(of: word.littleEndian) { String(decoding: $0.prefix(length), as: UTF8.self) }
        return name
    }
}

extension JSONParser {
    /// The members of a request and of its params, one bit each, to refuse duplicates.
    private struct Seen: OptionSet {
        let rawValue: UInt16
        static let jsonrpc = Seen(rawValue: 1 << 0)
        static let id = Seen(rawValue: 1 << 1)
        static let method = Seen(rawValue: 1 << 2)
        static let params = Seen(rawValue: 1 << 3)
        static let device = Seen(rawValue: 1 << 4)
        static let data = Seen(rawValue: 1 << 5)
        static let dataBase64 = Seen(rawValue: 1 << 6)
        static let timeout = Seen(rawValue: 1 << 7)
        static let wait = Seen(rawValue: 1 << 8)

        /// Marks `member`; false if it was seen already.
        mutating func first(_ member: Seen) -> Bool { insert(member).inserted }
    }

    fileprivate mutating func fastRequest(names: inout DeviceNames) throws(JSONParseError) -> Request? {
        var seen = Seen()
        var id: RequestID?
        var isTransact = false
        var transfer = TransferParams(device: "", data: [])
        skipWhitespace()
        let accepted = try fastObject { (p: inout JSONParser, key) throws(JSONParseError) -> Bool in
            if p.key(key, is: KeyWord.jsonrpc, "jsonrpc") {
                guard seen.first(.jsonrpc), p.at(UInt8(ascii: "\"")) else { return false }
                return p.key(try p.fastKey(), is: ValueWord.version, "2.0")
            }
            if p.key(key, is: KeyWord.id, "id") {
                guard seen.first(.id) else { return false }
                if p.at(UInt8(ascii: "\"")) {
                    id = .string(try p.parseString())
                    return true
                }
                if let value = p.fastSmallInteger() {
                    id = .int(value)
                    return true
                }
                // `parseNumber` expects a number to start here (its callers check).
                guard p.atNumber, case .integer(let value) = try p.parseNumber() else { return false }
                id = .int(value)
                return true
            }
            if p.key(key, is: KeyWord.method, "method") {
                guard seen.first(.method), p.at(UInt8(ascii: "\"")) else { return false }
                let name = try p.fastKey()
                isTransact = p.key(name, is: ValueWord.transact, "transact")
                return isTransact || p.key(name, is: ValueWord.write, "write")
            }
            if p.key(key, is: KeyWord.params, "params") {
                guard seen.first(.params) else { return false }
                return try p.fastTransferParams(into: &transfer, seen: &seen, names: &names)
            }
            return false
        }
        skipWhitespace()
        guard accepted, position == bytes.count, seen.isSuperset(of: [.jsonrpc, .method, .params, .device]), let id,
            seen.contains(.data) != seen.contains(.dataBase64)
        else { return nil }
        return Request(id: id, method: isTransact ? .transact(transfer) : .write(transfer))
    }

    /// `{device, data | data_base64, timeout_ms?, wait_ms?}` with values the general decoder
    /// accepts as they are; false for anything else.
    private mutating func fastTransferParams(
        into params: inout TransferParams,
        seen: inout Seen,
        names: inout DeviceNames
    ) throws(JSONParseError) -> Bool {
        try fastObject { (p: inout JSONParser, key) throws(JSONParseError) -> Bool in
            if p.key(key, is: KeyWord.device, "device") {
                guard seen.first(.device), p.at(UInt8(ascii: "\"")) else { return false }
                switch try p.fastKey() {
                case .word(let word):
                    // Plain bytes are never zero: the length is where the word's zeros start.
                    let length = (64 - word.leadingZeroBitCount + 7) / 8
                    params.device = names.name(word: word, length: length)
                case .content(let content):
                    params.device = p.string(content)
                }
                return !params.device.isEmpty
            }
            if p.key(key, is: KeyWord.data, "data") {
                guard seen.first(.data), p.at(UInt8(ascii: "\"")) else { return false }
                params.data = try p.parseStringBytes()
                return true
            }
            if p.key(key, is: KeyWord.long, "data_base64") {
                guard seen.first(.dataBase64), p.at(UInt8(ascii: "\"")),
                    let decoded = try? Base64.decode(try p.parseString())
                else { return false }
                params.data = decoded
                return true
            }
            if p.key(key, is: KeyWord.long, "timeout_ms") {
                guard seen.first(.timeout), let ms = try p.fastMilliseconds(in: 1...ParamLimits.maxMilliseconds) else {
                    return false
                }
                params.timeoutMs = ms
                return true
            }
            if p.key(key, is: KeyWord.waitMs, "wait_ms") {
                guard seen.first(.wait), let ms = try p.fastMilliseconds(in: 0...ParamLimits.maxMilliseconds) else {
                    return false
                }
                params.waitMs = ms
                return true
            }
            return false
        }
    }

    /// Reads the object that starts here, handing each member's key to `member` with the parser
    /// at the member's value; `member` reads the value and says whether it is acceptable. True
    /// for a well-formed object whose every member was accepted, false for anything else.
    private mutating func fastObject(
        _ member: (inout JSONParser, FastKey) throws(JSONParseError) -> Bool
    ) throws(JSONParseError) -> Bool {
        guard take(UInt8(ascii: "{")) else { return false }
        skipWhitespace()
        if take(UInt8(ascii: "}")) { return true }
        repeat {
            skipWhitespace()
            guard at(UInt8(ascii: "\"")) else { return false }
            let key = try fastKey()
            skipWhitespace()
            guard take(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            guard try member(&self, key) else { return false }
            skipWhitespace()
        } while take(UInt8(ascii: ","))
        return take(UInt8(ascii: "}"))
    }

    /// A member's key (or a short string value): up to eight plain bytes as one word (read in
    /// one step, compared in one), or any other string's content.
    fileprivate enum FastKey {
        case word(UInt64)
        case content(StringContent)
    }

    /// The string whose opening quote is here, a key or a short value. Reads an eight-byte
    /// window: if the closing quote is the first byte in or just after it that is not plain
    /// ASCII, the string is the bytes before it (what ``parseStringContent()`` would answer for
    /// them); otherwise the string is parsed.
    private mutating func fastKey() throws(JSONParseError) -> FastKey {
        // The window is read as a little-endian word (its first byte lowest, as ``KeyWord``
        // builds them); elsewhere every key is parsed as a string, which answers the same.
        #if _endian(little)
            let start = position + 1
            if start + 8 < bytes.count, let base = bytes.baseAddress {
                let window = UnsafeRawPointer(base + start).loadUnaligned(as: UInt64.self)
                let mask = JSONStringScan.nonPlainMask(window)
                let length = mask.trailingZeroBitCount / 8  // 8 when every byte is plain
                if base[start + length] == UInt8(ascii: "\"") {
                    position = start + length + 1
                    return .word(length == 0 ? 0 : window & (UInt64.max >> (64 - 8 * length)))
                }
            }
        #endif
        return .content(try parseStringContent())
    }

    /// Whether `key` is `literal`, whose word (``KeyWord``) is `word`.
    private func key(_ key: FastKey, is word: UInt64, _ literal: StaticString) -> Bool {
        switch key {
        case .word(let keyWord): keyWord == word
        case .content(let content): self.content(content, is: literal)
        }
    }

    /// An integer literal in `range`, or nil for anything else (a `null` included).
    private mutating func fastMilliseconds(in range: ClosedRange<Int64>) throws(JSONParseError) -> Int64? {
        guard atNumber, case .integer(let value) = try parseNumber(), range.contains(value) else { return nil }
        return value
    }

    /// A non-negative integer of at most 18 digits without a leading zero, ended by a byte that
    /// cannot continue a number (what ``parseNumber()`` reads as `.integer` with the same value),
    /// read here in one loop; nil, with the position unchanged, for anything else (which
    /// ``parseNumber()`` then reads or refuses). Request ids are such integers, as a rule.
    private mutating func fastSmallInteger() -> Int64? {
        var i = position
        guard i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") else { return nil }
        var value: Int64 = 0
        while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
            value = value &* 10 &+ Int64(bytes[i] &- UInt8(ascii: "0"))
            i += 1
        }
        let digits = i - position
        guard digits <= 18, digits == 1 || bytes[position] != UInt8(ascii: "0") else { return nil }
        if i < bytes.count {
            let next = bytes[i]
            guard next != UInt8(ascii: "."), next != UInt8(ascii: "e"), next != UInt8(ascii: "E") else { return nil }
        }
        position = i
        return value
    }

    /// Whether a number literal starts here (`parseNumber` may be called).
    private var atNumber: Bool {
        position < bytes.count && (bytes[position] == UInt8(ascii: "-") || isDigit(at: position))
    }

    private func at(_ byte: UInt8) -> Bool { position < bytes.count && bytes[position] == byte }

    private mutating func take(_ byte: UInt8) -> Bool {
        guard at(byte) else { return false }
        position += 1
        return true
    }
}

/// The request's keys of up to eight bytes as ``JSONParser/FastKey`` words (little-endian, the
/// bytes after the key zero), and `long` for keys that are longer (they never come as a word:
/// its bytes would all be 0xFF, which is not plain). ``ValueWord`` does the same for values. Any thread.
///
/// Literals, not computed from the names: a `static let` computed at run time is a lazy global,
/// and each of its dozen reads a request went through `swift_once`. The tests check each word
/// (RequestFastPathTests: the common requests, with every key, must take the fast path).
private enum KeyWord {
    static let jsonrpc: UInt64 = 0x0063_7072_6E6F_736A  // "jsonrpc"
    static let id: UInt64 = 0x0000_0000_0000_6469  // "id"
    static let method: UInt64 = 0x0000_646F_6874_656D  // "method"
    static let params: UInt64 = 0x0000_736D_6172_6170  // "params"
    static let device: UInt64 = 0x0000_6563_6976_6564  // "device"
    static let data: UInt64 = 0x0000_0000_6174_6164  // "data"
    static let waitMs: UInt64 = 0x0073_6D5F_7469_6177  // "wait_ms"
    static let long = UInt64.max
}

/// The string values the fast path compares, as ``KeyWord`` words. Any thread.
private enum ValueWord {
    static let version: UInt64 = 0x0000_0000_0030_2E32  // "2.0"
    static let transact: UInt64 = 0x7463_6173_6E61_7274  // "transact"
    static let write: UInt64 = 0x0000_0065_7469_7277  // "write"
}
