import ControlProtocol
import JSONCodec

/// The JSON-RPC calls that are not one plain request: refusals, notifications, `rpc.discover`
/// and batches. A plain request takes the shorter way in `processLine`.
extension ClientConnection {
    /// Handles one call that is not a plain request. Control loop only.
    func handle(_ call: Call) {
        switch call {
        case .request(let request):
            handOver(request)
        case .notification(let method):
            execute(notification: method)
        case .discover(let id):
            server.counters.requestsDecoded.increment()
            // Counted as a request owed nothing: the answer is sent at once.
            if let id { send(line: fitted(ResponseEncoder.successLine(id: id, result: OpenRPCDocument()), id: id)) }
        case .rejected(let rejection):
            server.counters.decodeErrors.increment()
            server.logger.log(.debug, "\(self): rejected a request line: \(rejection.error)")
            var reply: [UInt8] = []
            rejection.encodeResponse(into: &reply)
            send(line: reply)
        case .ignored(let error):
            ignore(error)
        }
    }

    /// A request goes to the handler; its answer is owed. Control loop only.
    func handOver(_ request: Request) {
        server.counters.requestsDecoded.increment()
        output.withLock { $0.pendingRequests += 1 }
        // Whatever follows may be raw bytes: read nothing more until it is answered.
        if request.method.switchesToRawBytes { awaitAttachAnswer(request.id) }
        server.handler.handle(request, from: self)
    }

    /// A notification is executed as a request whose answer is dropped (its id is reserved,
    /// ``ReplyRoutes/notificationID()``). It stays owed until then, so a client that sends a
    /// `write` notification and closes at once still has it executed. `attach` needs its answer
    /// to start the raw stream: as a notification it is ignored. Control loop only.
    private func execute(notification method: Method) {
        guard !method.switchesToRawBytes else {
            ignore(RPCError(.invalidRequest, "attach needs its answer to start: send it with an id"))
            return
        }
        let most = server.limits.maxRoutedReplies
        guard routes.withLock({ $0.count }) < most else {
            ignore(RPCError(.queueFull, "\(most) answers are already waiting (limits.max_requests_per_client)"))
            return
        }
        let id = routes.withLock { $0.notificationID() }
        routedCount.add(1, ordering: .relaxed)
        handOver(Request(id: id, method: method))
    }

    /// A notification that cannot be executed: JSON-RPC forbids an answer; logged and counted.
    private func ignore(_ error: RPCError) {
        server.counters.decodeErrors.increment()
        server.logger.log(.debug, "\(self): ignored a notification (notifications are never answered): \(error)")
    }

    /// The shortest answer an element that runs can get (`{"jsonrpc":"2.0","id":0,"result":{}}`,
    /// 36 bytes, plus the comma between elements): what ``handle(batch:)`` counts for it before
    /// it runs.
    static let minimumReplyBytes = 37

    /// The bytes of the OpenRPC document, which `rpc.discover` answers (a constant text).
    static let openRPCDocumentBytes: Int = {
        var bytes: [UInt8] = []
        OpenRPCDocument().encodeJSON(into: &bytes)
        return bytes.count
    }()

    /// The length of `rpc.discover`'s answer to `id`, without encoding the document: the same
    /// line with `{}` (2 bytes) in its place.
    static func discoverReplyBytes(id: RequestID) -> Int {
        ResponseEncoder.successLine(id: id, result: JSONValue.object([:])).count - 2 + openRPCDocumentBytes
    }

    /// A batch: each element handled as if sent alone, in order; one array line answers the
    /// elements that are owed an answer, once all are answered (none for a batch of
    /// notifications). `attach` cannot be an element (its raw stream would have no place). An
    /// element whose id repeats one still waiting in a batch is refused (its answer could not
    /// be told apart). A batch whose answers could not fit in the client's outbound limit, or
    /// that would pass its routed-answer limit, is refused whole before any element runs
    /// (``batchRefusal(known:running:routed:minimumReply:)``). Control loop only.
    func handle(batch calls: [Call]) {
        var replies: [[UInt8]?] = []
        var owed: [(slot: Int, id: RequestID)] = []
        var actions: [Call] = []
        var ids = Set<RequestID>()
        // `rpc.discover` answers are large (the whole document): sized first, encoded only
        // once the batch is accepted, so that a refused batch costs nothing.
        var discoveries: [(slot: Int, id: RequestID)] = []
        var discoveryBytes = 0
        var rejected = 0
        var notifications = 0
        func refuse(_ id: RequestID?, _ message: String) -> [UInt8] {
            rejected += 1
            var line: [UInt8] = []
            ResponseEncoder.failure(id: id, error: RPCError(.invalidRequest, message), into: &line)
            return line
        }
        let alreadyRouted = routes.withLock { table in
            calls.map { call in
                if case .request(let request) = call { return table.isRouted(request.id) }
                return false
            }
        }
        for (index, call) in calls.enumerated() {
            switch call {
            case .request(let request):
                if request.method.switchesToRawBytes {
                    replies.append(refuse(request.id, "attach cannot be part of a batch: send it alone"))
                } else if alreadyRouted[index] || !ids.insert(request.id).inserted {
                    replies.append(refuse(request.id, "request id \(request.id) is used by another request of a batch"))
                } else {
                    owed.append((replies.count, request.id))
                    replies.append(nil)
                    actions.append(call)
                }
            case .discover(let id?):
                discoveries.append((replies.count, id))
                discoveryBytes += Self.discoverReplyBytes(id: id)
                replies.append(nil)
            case .rejected(let rejection):
                rejected += 1
                var reply: [UInt8] = []
                rejection.encodeResponse(into: &reply)
                replies.append(reply)
            case .notification:
                notifications += 1
                actions.append(call)
            case .discover(nil), .ignored:
                actions.append(call)
            }
        }
        // Each answer's `\n` becomes the comma between elements in the array line.
        let known = replies.reduce(discoveryBytes) { $0 + ($1?.count ?? 0) }
        if let refusal = batchRefusal(
            known: known,
            running: owed.count,
            routed: owed.count + notifications,
            minimumReply: Self.minimumReplyBytes
        ) {
            refuseBatch(refusal, elements: calls.count)
            return
        }
        server.counters.requestsDecoded.add(discoveries.count, ordering: .relaxed)
        server.counters.decodeErrors.add(rejected, ordering: .relaxed)
        for (slot, id) in discoveries { replies[slot] = ResponseEncoder.successLine(id: id, result: OpenRPCDocument()) }
        if !replies.isEmpty {
            if owed.isEmpty {
                send(line: ReplyRoutes.completedLine(replies))
            } else {
                // The answers known now are held until the batch is complete: counted now.
                guard reserve(known) else { return }
                // The batch is one answer owed; its elements' answers are gathered, not sent.
                routes.withLock { $0.addBatch(replies: replies, owed: owed) }
                routedCount.add(owed.count, ordering: .relaxed)
                output.withLock { $0.pendingRequests += 1 }
            }
        }
        for call in actions {
            guard state.current.isOpen else { return }
            if case .request(let request) = call {
                // Counted as decoded; owed through the batch, not one by one.
                server.counters.requestsDecoded.increment()
                server.handler.handle(request, from: self)
            } else {
                handle(call)
            }
        }
    }

    /// Answers a batch refused whole with one error (id null, as JSON-RPC answers a batch it
    /// cannot take); counted, and logged at most once a second. Control loop only.
    private func refuseBatch(_ error: RPCError, elements: Int) {
        server.counters.decodeErrors.increment()
        server.counters.batchesRefused.increment()
        let (emit, suppressed) = server.batchRefusalLog.admit(now: loop.now.nanoseconds)
        if emit {
            let more = suppressed > 0 ? " (\(suppressed) more since the last report)" : ""
            server.logger.log(.notice, "\(self): refused a batch of \(elements) calls: \(error.message)\(more)")
        }
        var line: [UInt8] = []
        ResponseEncoder.failure(id: nil, error: error, into: &line)
        send(line: line)
    }

    /// Sends a response line for `id` where its route says (see ``ReplyRoutes``). Returns
    /// false when `id` is not routed: the caller sends it as usual. Any thread.
    func reroute(_ line: [UInt8], for id: RequestID) -> Bool {
        // Counted before it is held: a batch's answers are bytes the client makes us keep.
        let line = routes.withLock { $0.holdsInBatch(id) } ? holdAnswer(line, for: id) : line
        switch routes.withLock({ $0.take(line, for: id) }) {
        case .notRouted:
            return false
        case .held:
            routedCount.subtract(1, ordering: .relaxed)
        case .dropped:
            routedCount.subtract(1, ordering: .relaxed)
            output.withLock { $0.responseLeaving() }
            // A draining connection may have been waiting for just this.
            loop.perform { self.closeIfIdle() }
        case .batchComplete(let arrayLine, let heldBytes):
            routedCount.subtract(1, ordering: .relaxed)
            // The held answers leave the routes and come back counted as the array line.
            release(heldBytes)
            respond(encodedLine: arrayLine)
        }
        return true
    }
}
