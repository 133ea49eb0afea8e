/// A result that is one JSON object: it names its members in order (``encodeMembers(into:)``)
/// and the default ``encodeJSON(into:)`` writes the braces and commas around them. Members
/// appear in the order they are added, so a type's encoding says its key order.
///
/// Threading: whatever the conforming type says; the protocol adds no state.
package protocol JSONObjectEncodable: JSONEncodable {
    /// Adds this value's members, in order.
    func encodeMembers(into object: inout JSONMembers)
}

extension JSONObjectEncodable {
    package func encodeJSON(into buffer: inout [UInt8]) {
        var object = JSONMembers()
        swap(&object.buffer, &buffer)  // written in place, without copying the caller's bytes
        object.buffer.append(UInt8(ascii: "{"))
        encodeMembers(into: &object)
        object.buffer.append(UInt8(ascii: "}"))
        swap(&object.buffer, &buffer)
    }
}

/// The members of the JSON object being written: each `add` writes `"key":value`, after a
/// comma unless it is the first. Keys are snake_case ASCII names (the protocol's own), written as
/// they are (no escaping is needed). An optional value that is nil is written as `null` by the
/// `add` overloads that take one; a member that is left out is simply not added.
///
/// Threading: a value. Any thread.
package struct JSONMembers {
    fileprivate var buffer: [UInt8] = []
    private var isFirst = true

    fileprivate init() {}

    private mutating func key(_ key: StaticString) {
        if isFirst {
            isFirst = false
        } else {
            buffer.append(UInt8(ascii: ","))
        }
        buffer.append(UInt8(ascii: "\""))
        JSONOutput.appendLiteral(key, to: &buffer)
        JSONOutput.appendLiteral("\":", to: &buffer)
    }

    package mutating func add(_ key: StaticString, _ value: String) {
        self.key(key)
        JSONOutput.appendString(value, to: &buffer)
    }

    /// `null` when nil.
    package mutating func add(_ key: StaticString, _ value: String?) {
        guard let value else { return addNull(key) }
        add(key, value)
    }

    package mutating func add(_ key: StaticString, _ value: Int64) {
        self.key(key)
        JSONOutput.appendInteger(value, to: &buffer)
    }

    /// A count; one beyond `Int64.max` (never reached in practice) is written as `Int64.max`.
    package mutating func add(_ key: StaticString, _ value: UInt64) {
        add(key, Int64(clamping: value))
    }

    /// In Swift's shortest round-trip form (`0.25`, `1.0`); `null` if not finite.
    package mutating func add(_ key: StaticString, _ value: Double) {
        self.key(key)
        JSONOutput.appendNumber(.double(value), to: &buffer)
    }

    package mutating func add(_ key: StaticString, _ value: Bool) {
        self.key(key)
        JSONOutput.appendLiteral(value ? "true" : "false", to: &buffer)
    }

    /// An array of strings, in the order given.
    package mutating func add(_ key: StaticString, _ strings: [String]) {
        self.key(key)
        buffer.append(UInt8(ascii: "["))
        for (index, string) in strings.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            JSONOutput.appendString(string, to: &buffer)
        }
        buffer.append(UInt8(ascii: "]"))
    }

    /// Any value that writes itself (an object, a list of them …).
    package mutating func add(_ key: StaticString, _ value: some JSONEncodable) {
        self.key(key)
        value.encodeJSON(into: &buffer)
    }

    /// `null` when nil.
    package mutating func add(_ key: StaticString, _ value: (some JSONEncodable)?) {
        guard let value else { return addNull(key) }
        add(key, value)
    }

    package mutating func addNull(_ key: StaticString) {
        self.key(key)
        JSONOutput.appendLiteral("null", to: &buffer)
    }
}

/// A list of encodable values is a JSON array of them.
extension Array: JSONEncodable where Element: JSONEncodable {
    public func encodeJSON(into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "["))
        for (index, element) in enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            element.encodeJSON(into: &buffer)
        }
        buffer.append(UInt8(ascii: "]"))
    }
}
