import JSONCodec

/// One frame (a message with the accessory's framing removed) as results and `device.data`
/// carry it: `{"data_base64":…}` always, plus `"data"` (text) when the bytes are valid UTF-8.
///
/// Threading: a value. Any thread.
package struct Frame: Sendable, Hashable, JSONEncodable {
    package var bytes: [UInt8]

    package init(_ bytes: [UInt8]) { self.bytes = bytes }

    /// A frame holding the UTF-8 of `text`.
    package init(text: String) { self.bytes = Array(text.utf8) }

    /// The bytes as text, if they are valid UTF-8.
    package var text: String? {
        UTF8Validation.isValid(bytes) ? String(decoding: bytes, as: UTF8.self) : nil
    }

    package func encodeJSON(into buffer: inout [UInt8]) {
        Frame.encode(bytes, into: &buffer)
    }

    /// Appends the frame object for `bytes` without building a `Frame` (e.g. from a slice of a
    /// receive buffer).
    static func encode(_ bytes: some Collection<UInt8>, into buffer: inout [UInt8]) {
        if bytes.withContiguousStorageIfAvailable({ write(of: $0, to: &buffer) }) == nil {
            Array(bytes).withUnsafeBufferPointer { write(of: $0, to: &buffer) }
        }
    }

    /// The frame object for `bytes`, to any sink.
    static func write(of bytes: UnsafeBufferPointer<UInt8>, to sink: inout some JSONSink) {
        sink.append(UInt8(ascii: "{"))
        writeMembers(of: bytes, to: &sink)
        sink.append(UInt8(ascii: "}"))
    }

    /// The frame as a `JSONValue` object (for callers that build results as values).
    var json: JSONValue {
        var object: JSONObject = ["data_base64": .string(Base64.encodedString(bytes))]
        if let text { object.append("data", .string(text)) }
        return .object(object)
    }

    /// Appends `"data_base64":"…"` and, if valid UTF-8, `,"data":"…"`.
    static func appendMembers(of bytes: some Collection<UInt8>, to buffer: inout [UInt8]) {
        if bytes.withContiguousStorageIfAvailable({ writeMembers(of: $0, to: &buffer) }) == nil {
            Array(bytes).withUnsafeBufferPointer { writeMembers(of: $0, to: &buffer) }
        }
    }

    static func writeMembers(of bytes: UnsafeBufferPointer<UInt8>, to buffer: inout some JSONSink) {
        buffer.append("\"data_base64\":\"")
        Base64.encode(bytes, to: &buffer)
        buffer.append(UInt8(ascii: "\""))
        if UTF8Validation.firstInvalidOffset(in: bytes) == nil {
            buffer.append(",\"data\":")
            JSONOutput.writeEscaped(utf8: bytes, to: &buffer)
        }
    }

    /// The most bytes the frame object of `count` bytes takes: base64, the text escaped (at most
    /// six bytes a byte), keys and punctuation.
    static func maxEncodedCount(_ count: Int) -> Int {
        Base64.encodedCount(count) + 6 * count + 32
    }

    /// Decodes a frame object (client side): `data_base64` is authoritative; `data`, if
    /// present, must agree with it.
    package init(json: JSONValue) throws(MessageDecodingError) {
        guard case .object(let object) = json else {
            throw MessageDecodingError("a frame must be an object (got \(json.kindDescription))")
        }
        guard case .string(let encoded)? = object["data_base64"] else {
            throw MessageDecodingError("a frame needs a data_base64 string")
        }
        do throws(Base64Error) {
            bytes = try Base64.decode(encoded)
        } catch {
            throw MessageDecodingError("a frame's data_base64 is not valid base64: \(error)")
        }
        if let text = object["data"], text != .string(String(decoding: bytes, as: UTF8.self)) {
            throw MessageDecodingError("a frame's data does not match its data_base64")
        }
    }
}

/// The wire names of accessory states: `absent → opening → ready →
/// (failed | absent)`, and `disabled`.
///
/// Threading: a value. Any thread.
public enum DeviceState: String, Sendable, Hashable, CaseIterable {
    case absent
    case opening
    case ready
    /// Reported only: ready, but discarding a late answer, probing or settling before the next
    /// request runs (requests queue meanwhile).
    case resyncing
    case failed
    case disabled
}
