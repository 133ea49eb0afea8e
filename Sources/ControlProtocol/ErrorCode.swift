import JSONCodec

/// The error codes of the control protocol (docs/protocol.md, "Errors"): JSON-RPC's own, and the domain's.
///
/// Threading: a value. Any thread.
public enum ErrorCode: Int, Sendable, CaseIterable {
    /// The line is not JSON (malformed, invalid UTF-8, too deep).
    case parseError = -32700
    /// Valid JSON but not a request this daemon accepts.
    case invalidRequest = -32600
    /// No such method.
    case methodNotFound = -32601
    /// The method exists; its params are wrong.
    case invalidParams = -32602
    /// A bug in the daemon.
    case internalError = -32603
    case unknownDevice = 1001
    case deviceUnavailable = 1002
    case timedOut = 1003
    case cancelled = 1004
    case deviceRemoved = 1005
    case permissionDenied = 1006
    case queueFull = 1007
    case ioError = 1008

    /// A short snake_case name: `unknown_device`, `timed_out`, ….
    public var name: String {
        switch self {
        case .parseError: "parse_error"
        case .invalidRequest: "invalid_request"
        case .methodNotFound: "method_not_found"
        case .invalidParams: "invalid_params"
        case .internalError: "internal_error"
        case .unknownDevice: "unknown_device"
        case .deviceUnavailable: "device_unavailable"
        case .timedOut: "timed_out"
        case .cancelled: "cancelled"
        case .deviceRemoved: "device_removed"
        case .permissionDenied: "permission_denied"
        case .queueFull: "queue_full"
        case .ioError: "io_error"
        }
    }

    /// The message used when nothing more specific is known.
    var defaultMessage: String {
        switch self {
        case .parseError: "parse error: the line is not valid JSON"
        case .invalidRequest: "invalid request"
        case .methodNotFound: "unknown method"
        case .invalidParams: "invalid params"
        case .internalError: "internal error"
        case .unknownDevice: "no accessory with that name is configured"
        case .deviceUnavailable: "the accessory is not available right now"
        case .timedOut: "timed out"
        case .cancelled: "cancelled"
        case .deviceRemoved: "the accessory was removed during the request"
        case .permissionDenied: "permission denied"
        case .queueFull: "the accessory's request queue is full; try again later"
        case .ioError: "I/O error talking to the accessory"
        }
    }
}

/// A JSON-RPC error object: `{"code":…,"message":…,"data":…}`.
///
/// `code` is kept raw so that a client can carry codes it does not know; ``errorCode`` maps it.
///
/// Threading: a value. Any thread.
public struct RPCError: Error, Sendable, Hashable, CustomStringConvertible, JSONEncodable {
    public var code: Int
    public var message: String
    /// Extra detail, usually an object (e.g. `{"device":"modem"}`). Omitted when `nil`.
    public var data: JSONValue?

    /// An error with `code`, `message` (or the code's default message) and optional `data`.
    package init(_ code: ErrorCode, _ message: String? = nil, data: JSONValue? = nil) {
        self.code = code.rawValue
        self.message = message ?? code.defaultMessage
        self.data = data
    }

    /// An error with any code (as received).
    package init(code: Int, message: String, data: JSONValue? = nil) {
        self.code = code
        self.message = message
        self.data = data
    }

    /// The known code, if it is one.
    public var errorCode: ErrorCode? { ErrorCode(rawValue: code) }

    public var description: String { "\(message) (\(errorCode?.name ?? "error") \(code))" }

    public func encodeJSON(into buffer: inout [UInt8]) {
        JSONOutput.appendLiteral("{\"code\":", to: &buffer)
        JSONOutput.appendInteger(Int64(code), to: &buffer)
        JSONOutput.appendLiteral(",\"message\":", to: &buffer)
        JSONOutput.appendString(message, to: &buffer)
        if let data {
            JSONOutput.appendLiteral(",\"data\":", to: &buffer)
            JSONOutput.appendValue(data, to: &buffer)
        }
        buffer.append(UInt8(ascii: "}"))
    }

    static func invalidParams(_ message: String) -> RPCError { RPCError(.invalidParams, message) }
    static func invalidRequest(_ message: String) -> RPCError { RPCError(.invalidRequest, message) }
}
