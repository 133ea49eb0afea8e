import ControlProtocol

/// Where the answers to a connection's batch elements and notifications go instead of straight
/// to the client: into their batch's array (sent as one line once every element is answered),
/// or nowhere (JSON-RPC never answers a notification).
///
/// Bounded per connection: the entries by ``ControlServerLimits/maxRoutedReplies`` (checked by
/// the connection before it adds any), the bytes of the answers held by
/// ``ControlServerLimits/maxOutboundBytes`` (the connection counts each before it is held).
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
        /// The batch's last answer: its array line (ending in `\n`), to send, and the bytes of
        /// the answers that were held for it (which the connection counted).
        case batchComplete([UInt8], heldBytes: Int)
    }

    private enum Route {
        case drop
        case batch(UInt64, slot: Int)
    }

    /// A batch waiting for answers: one reply per element that is answered, in element order.
    private struct PendingBatch {
        var replies: [[UInt8]?]
        var missing: Int
        /// The bytes of the answers in ``replies``.
        var heldBytes: Int
    }

    private var routes: [RequestID: Route] = [:]
    private var batches: [UInt64: PendingBatch] = [:]
    private var nextBatch: UInt64 = 0
    private var nextNotification: UInt64 = 0

    /// Whether `id` already has a route (an element of a batch waiting for its answer).
    func isRouted(_ id: RequestID) -> Bool { routes[id] != nil }

    /// Whether `id`'s answer goes into a batch (and is held there until the batch is complete).
    func holdsInBatch(_ id: RequestID) -> Bool {
        if case .batch = routes[id] { return true }
        return false
    }

    /// Answers waiting for their route: batch elements and notifications.
    var count: Int { routes.count }

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
        let held = replies.reduce(0) { $0 + ($1?.count ?? 0) }
        batches[nextBatch] = PendingBatch(replies: replies, missing: owed.count, heldBytes: held)
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
            batch.heldBytes += line.count
            guard batch.missing == 0 else {
                batches[batchID] = batch
                return .held
            }
            batches[batchID] = nil
            return .batchComplete(Self.completedLine(batch.replies), heldBytes: batch.heldBytes)
        }
    }

    /// Forgets every route and held answer (the connection closed: nobody will read them).
    /// Returns the bytes of the answers that were held.
    mutating func removeAll() -> Int {
        let held = batches.values.reduce(0) { $0 + $1.heldBytes }
        routes = [:]
        batches = [:]
        return held
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
