/// A decoded request: its id and its typed method call.
///
/// Threading: a value. Any thread.
public struct Request: Sendable, Hashable {
    public var id: RequestID
    public var method: Method

    package init(id: RequestID, method: Method) {
        self.id = id
        self.method = method
    }
}

/// A line that is not an acceptable request, with the error response to send for it.
///
/// `id` is the request's id when it could be read, else `nil` (sent as `null`).
///
/// Threading: a value. Any thread.
package struct RequestRejection: Error, Sendable, Hashable, CustomStringConvertible {
    package var id: RequestID?
    package var error: RPCError

    package init(id: RequestID?, error: RPCError) {
        self.id = id
        self.error = error
    }

    /// Appends the error response line (ending in `\n`) to `buffer`.
    package func encodeResponse(into buffer: inout [UInt8]) {
        ResponseEncoder.failure(id: id, error: error, into: &buffer)
    }

    /// The error response line, ending in `\n`.
    package var responseLine: [UInt8] {
        var buffer: [UInt8] = []
        encodeResponse(into: &buffer)
        return buffer
    }

    package var description: String { error.description }
}
