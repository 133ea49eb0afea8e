import JSONCodec

/// The protocol's OpenRPC description (docs/accessoryd.openrpc.json), the result of
/// `rpc.discover`. Embedded at build time: scripts/embed-openrpc.py writes the document's
/// compact JSON into `OpenRPCDocument+Text.swift`, and the tests fail while the two differ.
///
/// Threading: a value. Any thread.
package struct OpenRPCDocument: Sendable, JSONEncodable {
    package init() {}

    /// The compact JSON text (one line), joined once.
    static let bytes: [UInt8] = Array(pieces.joined().utf8)

    package func encodeJSON(into buffer: inout [UInt8]) {
        buffer.append(contentsOf: Self.bytes)
    }
}
