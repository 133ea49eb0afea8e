import ControlProtocol
import JSONCodec
import Operations

/// Why a request on an accessory failed, in the daemon's words; mapped to the protocol's error
/// codes at the edge (``rpcError``). Any thread (a value).
public enum AccessoryError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownDevice(String)
    case unavailable(device: String, state: DeviceState, reason: String)
    case timedOut(device: String, after: Duration)
    case cancelled
    case removed(device: String, reason: String)
    case queueFull(device: String, depth: Int)
    case io(device: String, reason: String)
    case lockedByAnotherClient(device: String)
    case notLocked(device: String)
    case waitExpired(device: String, what: String)
    /// Another client holds the lock and the request did not ask to wait (`wait_ms`).
    case locked(device: String, holder: UInt64)
    /// The client already has `limits.max_requests_per_client` requests unanswered.
    case tooManyRequests(limit: Int)
    /// A `lock` asked for a lease over `limits.max_lease_ms`.
    case leaseTooLong(requested: Int, limit: Int)
    /// A second `lock` from a client already waiting for the same accessory's lock.
    case alreadyWaitingForLock(device: String)
    /// A `control` named an attach session (`session`) that is not this user's session on the
    /// accessory: another token, another user, or no session (the same answer for each).
    case notSessionOwner(device: String)
    /// The attach session a `control` belonged to ended before the control finished.
    case sessionEnded(device: String)

    public var description: String {
        switch self {
        case .unknownDevice(let name):
            return "no accessory named \"\(name)\" is configured"
        case .unavailable(let device, let state, let reason):
            return "\(device) is \(state.rawValue)\(reason.isEmpty ? "" : ": \(reason)")"
        case .timedOut(let device, let after):
            return "\(device) did not answer within \(Int(after.milliseconds)) ms"
        case .cancelled:
            return "the request was cancelled"
        case .removed(let device, let reason):
            return "\(device) was removed while the request was in progress (\(reason))"
        case .queueFull(let device, let depth):
            return "\(device) already has \(depth) requests waiting (limits.queue_depth); try again later"
        case .io(let device, let reason):
            return "I/O error on \(device): \(reason)"
        case .lockedByAnotherClient(let device):
            return "\(device) is locked by another client"
        case .notLocked(let device):
            return "you do not hold the lock on \(device)"
        case .waitExpired(let device, let what):
            return "gave up waiting for \(what) on \(device)"
        case .locked(let device, let holder):
            return "\(device) is locked by client \(holder); send wait_ms to wait for the lock"
        case .tooManyRequests(let limit):
            return
                "this connection already has \(limit) requests unanswered (limits.max_requests_per_client); wait for answers before sending more"
        case .leaseTooLong(let requested, let limit):
            return
                "lease_ms \(requested) is longer than the daemon allows (limits.max_lease_ms: \(limit)); renew the lock with another lock instead"
        case .alreadyWaitingForLock(let device):
            return "this connection is already waiting for the lock on \(device); one wait at a time"
        case .notSessionOwner(let device):
            return
                "params.session does not name an attach session of yours on \(device) (the session may have ended)"
        case .sessionEnded(let device):
            return "the attach session on \(device) ended before this control finished"
        }
    }

    /// The JSON-RPC error for this failure.
    public var rpcError: RPCError {
        switch self {
        case .unknownDevice: return RPCError(.unknownDevice, description)
        case .unavailable: return RPCError(.deviceUnavailable, description)
        case .timedOut, .waitExpired: return RPCError(.timedOut, description)
        case .cancelled: return RPCError(.cancelled, description)
        case .removed: return RPCError(.deviceRemoved, description)
        case .lockedByAnotherClient, .notLocked, .notSessionOwner: return RPCError(.permissionDenied, description)
        case .sessionEnded: return RPCError(.cancelled, description)
        case .queueFull(_, let depth): return RPCError(.queueFull, description, data: Self.limit("queue_depth", depth))
        case .tooManyRequests(let limit):
            return RPCError(.queueFull, description, data: Self.limit("max_requests_per_client", limit))
        case .leaseTooLong(_, let limit):
            return RPCError(.invalidParams, description, data: Self.limit("max_lease_ms", limit))
        case .locked(let device, let holder):
            let data: JSONObject = ["device": .string(device), "reason": "locked", "holder": .int(Int(holder))]
            return RPCError(.deviceUnavailable, description, data: .object(data))
        case .alreadyWaitingForLock:
            // "Try again later", as for a full queue: once the first wait ends.
            return RPCError(.queueFull, description, data: .object(["reason": "already_waiting_for_lock"]))
        case .io: return RPCError(.ioError, description)
        }
    }

    /// `{"limit": "<the limits: key>", "value": <its value>}`: which limit refused a request.
    private static func limit(_ key: String, _ value: Int) -> JSONValue {
        .object(["limit": .string(key), "value": .int(value)])
    }

    /// Maps any error an operation may end with to the protocol's error.
    static func rpcError(for error: any Error) -> RPCError {
        if let e = error as? AccessoryError { return e.rpcError }
        if let e = error as? OperationError {
            switch e {
            case .cancelled: return AccessoryError.cancelled.rpcError
            case .timedOut: return RPCError(.timedOut, "the request timed out")
            case .conditionFailed(_, let underlying?): return rpcError(for: underlying)
            default: return RPCError(.ioError, "\(e)")
            }
        }
        return RPCError(.ioError, "\(error)")
    }
}
