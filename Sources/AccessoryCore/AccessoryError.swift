import ControlProtocol
import Operations

/// Why a request on an accessory failed, in the daemon's words; mapped to the protocol's error
/// codes at the edge (``rpcError``). Any thread (a value).
public enum AccessoryError: Error, Sendable, Equatable, CustomStringConvertible {
    case unknownDevice(String)
    case unavailable(device: String, state: DeviceState, reason: String)
    case timedOut(device: String, after: Duration)
    case cancelled
    case removed(device: String, reason: String)
    case permissionDenied(device: String)
    case queueFull(device: String, depth: Int)
    case io(device: String, reason: String)
    case lockedByAnotherClient(device: String)
    case notLocked(device: String)
    case waitExpired(device: String, what: String)

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
        case .permissionDenied(let device):
            return "you are not allowed to use \(device)"
        case .queueFull(let device, let depth):
            return "\(device) already has \(depth) requests waiting; try again later"
        case .io(let device, let reason):
            return "I/O error on \(device): \(reason)"
        case .lockedByAnotherClient(let device):
            return "\(device) is locked by another client"
        case .notLocked(let device):
            return "you do not hold the lock on \(device)"
        case .waitExpired(let device, let what):
            return "gave up waiting for \(what) on \(device)"
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
        case .permissionDenied, .lockedByAnotherClient, .notLocked: return RPCError(.permissionDenied, description)
        case .queueFull: return RPCError(.queueFull, description)
        case .io: return RPCError(.ioError, description)
        }
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
