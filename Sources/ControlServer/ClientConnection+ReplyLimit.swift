import ControlProtocol

/// Every byte a client can make the server hold counts against
/// ``ControlServerLimits/maxOutboundBytes``, from the first byte: replies on their way or queued,
/// and batch answers waiting in ``ReplyRoutes`` for the rest of their batch. The cap bounds the
/// server's memory per client whatever the client sends and whether or not it reads.
extension ClientConnection {
    /// The error that takes the place of a reply that cannot be held: longer than the whole
    /// limit (such a reply could never be queued, so the client learns why it has none instead
    /// of being disconnected for a reply it could not have read), or, with `besideHeld`, one
    /// that does not fit beside the bytes already held for the client. Any thread.
    static func replyTooLargeError(bytes: Int, limit: Int, besideHeld held: Int? = nil) -> RPCError {
        let why =
            held.map {
                "does not fit beside the other \($0) bytes held for this client (limits.client_outbound_bytes \(limit))"
            }
            ?? "is longer than limits.client_outbound_bytes (\(limit))"
        return RPCError(
            .invalidRequest,
            "the reply (\(bytes) bytes) \(why); it was not sent",
            data: .object([
                "limit": .string("client_outbound_bytes"), "value": .int(limit), "reply_bytes": .int(bytes),
            ])
        )
    }

    /// `line` (the answer to `id`) if it can ever be sent; otherwise the short error that
    /// replaces it (``replyTooLargeError(bytes:limit:)``), counted. Any thread.
    func fitted(_ line: [UInt8], id: RequestID?) -> [UInt8] {
        guard line.count > maxOutboundBytes else { return line }
        server.counters.repliesTooLarge.increment()
        var replacement: [UInt8] = []
        let error = Self.replyTooLargeError(bytes: line.count, limit: maxOutboundBytes)
        ResponseEncoder.failure(id: id, error: error, into: &replacement)
        return replacement
    }

    /// Counts `count` more bytes held for the client. Returns false, and closes the connection as
    /// a slow reader, if they would take it past the limit (then nothing is counted). Any thread.
    func reserve(_ count: Int) -> Bool {
        let before = queuedBytes.wrappingAdd(count, ordering: .relaxed).oldValue
        guard before + count > maxOutboundBytes else { return true }
        queuedBytes.wrappingSubtract(count, ordering: .relaxed)
        // Only the sender that moves the connection to closing counts and closes it.
        if state.move(to: .closing) != nil {
            server.counters.disconnectedSlowReader.increment()
            loop.perform { self.close(.slowReader(queuedBytes: before, limit: self.maxOutboundBytes)) }
        }
        return false
    }

    /// Bytes held no longer (written, dropped, or handed on as another line). Any thread.
    func release(_ count: Int) {
        if count > 0 { queuedBytes.wrappingSubtract(count, ordering: .relaxed) }
    }

    /// Why a batch must be refused whole before any of it runs, or nil. `known` is the size of
    /// the answers it gets without running anything (`rpc.discover`, refusals); every element
    /// that runs gets an answer of at least `minimumReply` bytes more. The upper bound of an
    /// element that runs is not known before it runs (a `transact` collects frames until its
    /// accessory's pattern matches): its answer is counted when it comes (``holdAnswer(_:)``).
    /// Control loop only.
    /// `routed`: the elements whose answers wait in ``routes`` (requests and notifications).
    func batchRefusal(known: Int, running: Int, routed: Int, minimumReply: Int) -> RPCError? {
        let limit = maxOutboundBytes
        let bound = known + running * minimumReply + 2
        if bound > limit {
            return RPCError(
                .invalidRequest,
                "batch refused: its reply would be at least \(bound) bytes, more than "
                    + "limits.client_outbound_bytes (\(limit)); none of it ran; send fewer calls per batch",
                data: .object([
                    "limit": .string("client_outbound_bytes"), "value": .int(limit), "reply_bytes": .int(bound),
                ])
            )
        }
        let waiting = routes.withLock { $0.count }
        if routed > 0 && waiting + routed > server.limits.maxRoutedReplies {
            let most = server.limits.maxRoutedReplies
            return RPCError(
                .queueFull,
                "batch refused: \(waiting) answers of this connection are waiting and the batch adds \(routed), "
                    + "more than limits.max_requests_per_client (\(most)); none of it ran",
                data: .object(["limit": .string("max_requests_per_client"), "value": .int(most)])
            )
        }
        return nil
    }

    /// An element's answer is about to be held in its batch: counted like a queued reply. When
    /// it does not fit beside what the client already holds, the element gets a short error in
    /// its place (counted too: if even that does not fit, the client is a slow reader and is
    /// disconnected). Returns the line to hold. Any thread.
    func holdAnswer(_ line: [UInt8], for id: RequestID) -> [UInt8] {
        let limit = maxOutboundBytes
        let held = queuedBytes.load(ordering: .relaxed)
        var answer = line
        if held + line.count > limit {
            server.counters.repliesTooLarge.increment()
            answer = []
            let error = Self.replyTooLargeError(bytes: line.count, limit: limit, besideHeld: held)
            ResponseEncoder.failure(id: id, error: error, into: &answer)
        }
        _ = reserve(answer.count)
        return answer
    }
}
