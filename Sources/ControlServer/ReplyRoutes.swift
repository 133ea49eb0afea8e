import ControlProtocol

/// Where the answers to a connection's batch elements and notifications go instead of straight
/// to the client: into their batch's array (sent as one line once every element is answered),
/// or nowhere (JSON-RPC never answers a notification).
///
/// Threading: any thread, inside `ClientConnection.routes`' lock.
struct ReplyRoutes {
    /// What becomes of a response line handed to ``take(_:for:)``.
    enum Taken {
        /// Not routed: send the line as it is.
        case notRouted
        /// A notification's answer: dropped.
        case dropped
        /// Kept in its batch, which still waits for other answers.
        case held
        /// The batch's last answer: its array line (ending in `\n`), to send.
        case batchComplete([UInt8])
    }

    private enum Route {
        case drop
        case batch(UInt64, slot: Int)
    }

    /// A batch waiting for answers: one reply per element that is answered, in element order.
    private struct PendingBatch {
        var replies: [[UInt8]?]
        var missing: Int
    }

    private var routes: [RequestID: Route] = [:]
    private var batches: [UInt64: PendingBatch] = [:]
    private var nextBatch: UInt64 = 0
    private var nextNotification: UInt64 = 0

    /// Whether `id` already has a route (an element of a batch waiting for its answer).
    func isRouted(_ id: RequestID) -> Bool { routes[id] != nil }

    /// A fresh id for a notification, whose answer is dropped. The ids start with U+0000, which
    /// no client sends in practice (documented as reserved in docs/protocol.md).
    mutating func notificationID() -> RequestID {
        nextNotification += 1
        let id = RequestID.string("\u{0}notification-\(nextNotification)")
        routes[id] = .drop
        return id
    }

    /// Registers a batch: `replies` holds the lines already known (errors, `rpc.discover`) and
    /// nil where `owed[k]`'s answer goes. Answers nothing yet: the caller sends
    /// ``completedLine(_:)`` at once when nothing is owed.
    mutating func addBatch(replies: [[UInt8]?], owed: [(slot: Int, id: RequestID)]) {
        nextBatch += 1
        batches[nextBatch] = PendingBatch(replies: replies, missing: owed.count)
        for (slot, id) in owed { routes[id] = .batch(nextBatch, slot: slot) }
    }

    /// Takes a response line (ending in `\n`) for request `id`.
    mutating func take(_ line: [UInt8], for id: RequestID) -> Taken {
        guard let route = routes.removeValue(forKey: id) else { return .notRouted }
        switch route {
        case .drop:
            return .dropped
        case .batch(let batchID, let slot):
            guard var batch = batches[batchID] else { return .dropped }
            batch.replies[slot] = line
            batch.missing -= 1
            guard batch.missing == 0 else {
                batches[batchID] = batch
                return .held
            }
            batches[batchID] = nil
            return .batchComplete(Self.completedLine(batch.replies))
        }
    }

    /// `[reply,reply,…]\n` from the replies (each a line ending in `\n`; nil ones skipped).
    static func completedLine(_ replies: [[UInt8]?]) -> [UInt8] {
        var line: [UInt8] = [UInt8(ascii: "[")]
        var first = true
        for case let reply? in replies {
            if !first { line.append(UInt8(ascii: ",")) }
            first = false
            line.append(contentsOf: reply.last == UInt8(ascii: "\n") ? reply.dropLast() : reply[...])
        }
        line.append(contentsOf: [UInt8(ascii: "]"), UInt8(ascii: "\n")])
        return line
    }
}
