/// A JSON object whose members keep their order.
///
/// Lookup is linear, which is the fastest for the few members a protocol message has.
/// Equality is order-sensitive. The parser rejects duplicate keys by default; ``append(_:_:)``
/// does not check for them (``subscript(_:)`` finds the first).
///
/// Threading: a value. Any thread.
public struct JSONObject: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// One member: a key and its value.
    ///
    /// Threading: a value. Any thread.
    public struct Member: Sendable, Hashable {
        public var key: String
        public var value: JSONValue

        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    /// The members in order.
    public private(set) var members: [Member]

    /// An empty object.
    public init() { members = [] }

    /// An object with these members, in this order.
    public init(_ pairs: [(String, JSONValue)]) {
        members = pairs.map { Member(key: $0.0, value: $0.1) }
    }

    /// An object with these members, in this order.
    public init(members: [Member]) { self.members = members }

    public init(dictionaryLiteral elements: (String, JSONValue)...) { self.init(elements) }

    public var startIndex: Int { members.startIndex }
    public var endIndex: Int { members.endIndex }
    public subscript(position: Int) -> Member { members[position] }

    /// The keys in order.
    public var keys: [String] { members.map(\.key) }

    /// The value of the first member named `key`. Setting replaces it in place, appends a new
    /// member, or (with `nil`) removes every member named `key`.
    public subscript(key: String) -> JSONValue? {
        get {
            for member in members where member.key == key { return member.value }
            return nil
        }
        set {
            guard let newValue else {
                members.removeAll { $0.key == key }
                return
            }
            if let index = members.firstIndex(where: { $0.key == key }) {
                members[index].value = newValue
            } else {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    /// Appends a member without looking for an existing one with the same key.
    public mutating func append(_ key: String, _ value: JSONValue) {
        members.append(Member(key: key, value: value))
    }

    /// Reserves room for `count` members.
    public mutating func reserveCapacity(_ count: Int) {
        members.reserveCapacity(count)
    }
}
