import IOLoop
import SystemCalls

/// Why a client connection closed.
///
/// Threading: a value. Any thread.
package enum CloseReason: Sendable, Equatable, CustomStringConvertible {
    /// The client closed its end (after its last response was delivered, if it only stopped sending).
    case peerClosed
    /// Reading from the client failed (`ECONNRESET` when it died with unread replies, …).
    case readFailed(Errno)
    /// Writing to the client failed (`EPIPE`: it has gone).
    case writeFailed(Errno)
    /// A request line was longer than the limit; the client got a final error line.
    case lineTooLong(limit: Int)
    /// The client stopped reading and its queued output passed the limit.
    case slowReader(queuedBytes: Int, limit: Int)
    /// No request line was completed within the limit of connecting
    /// (``ControlServerLimits/idleConnectionTimeout``).
    case noRequest(timeout: Duration)
    /// The handler asked for it (``ClientConnection/disconnect(_:)``), with its reason.
    case disconnected(String)
    /// The server shut down.
    case serverShutdown

    package var description: String {
        switch self {
        case .peerClosed: "closed by the client"
        case .readFailed(let errno): "read failed: \(errno)"
        case .writeFailed(let errno): "write failed: \(errno)"
        case .lineTooLong(let limit): "request line longer than \(limit) bytes"
        case .slowReader(let queued, let limit):
            "slow reader: \(queued) bytes of replies unread, limit \(limit)"
        case .noRequest(let timeout):
            "no request line within \(timeout.nanosecondsClamped / 1_000_000) ms of connecting (limits.idle_connection_timeout_ms)"
        case .disconnected(let why): "disconnected by the daemon: \(why)"
        case .serverShutdown: "server shutting down"
        }
    }

    /// The level a close for this reason is logged at: routine ones at debug, limits broken at
    /// warning.
    var logLevel: ControlServerLogger.Level {
        switch self {
        case .peerClosed, .serverShutdown: .debug
        case .readFailed(let e), .writeFailed(let e):
            e == .connectionReset || e == .brokenPipe ? .debug : .notice
        case .disconnected: .info
        case .lineTooLong, .slowReader: .warning
        // Logged by the server, at most once a second (many may time out at once).
        case .noRequest: .debug
        }
    }
}
