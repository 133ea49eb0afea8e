/// A request the soak sent and still expects the one response to. Threading: a value.
struct Call {
    enum Kind {
        case transact(device: Int, payload: [UInt8], slow: Bool)
        case write(device: Int, payload: [UInt8])
        case read(device: Int, maxFrames: Int)
        case subscribe
        case unsubscribe
        case lock(device: Int)
        case unlock(device: Int)
        case cancel(target: Int64)

        var name: String {
            switch self {
            case .transact(_, _, let slow): slow ? "transact(slow)" : "transact"
            case .write: "write"
            case .read: "read"
            case .subscribe: "subscribe"
            case .unsubscribe: "unsubscribe"
            case .lock: "lock"
            case .unlock: "unlock"
            case .cancel: "cancel"
            }
        }

        /// Whether `cancel` can name it (the requests the daemon queues).
        var isCancellable: Bool {
            switch self {
            case .transact, .write, .read: true
            default: false
            }
        }
    }

    /// Where the `cancel` of this request stands.
    enum CancelState {
        case none
        /// Sent; its answer has not come yet.
        case requested
        /// The daemon said `cancelled: true`: this request's response must carry no data.
        case reportedTrue
        case reportedFalse
    }

    let kind: Kind
    var cancel = CancelState.none
}

/// How an answered request ended, kept while its `cancel` is still unanswered. Threading: a value.
enum Outcome {
    case success
    case failure(code: Int)
}
