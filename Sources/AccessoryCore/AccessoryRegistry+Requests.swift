import AccessoryConfig
import ControlProtocol
import IOLoop
import Operations

extension AccessoryRegistry {
    /// Handles one decoded request: hops to the device loop, answers through `origin` exactly once.
    /// Any thread.
    public func handle(_ request: Request, from origin: any RequestOrigin) {
        // Not `loop.execute`: its closure would be allocated even when it runs at once, and with
        // the default thread layout this is called on the loop.
        if loop.inLoop {
            handleOnLoop(request, from: origin)
        } else {
            loop.perform { [self] in handleOnLoop(request, from: origin) }
        }
    }

    /// A client disconnected: its queued requests are cancelled (the executing one is finished
    /// cleanly and the queue resyncs), its locks released, its subscriptions dropped. Any thread.
    public func clientLeft(_ origin: any RequestOrigin) {
        loop.execute { [self] in
            clients[origin.clientID] = nil
            releaseEverything(of: origin)
        }
    }

    /// Cancels the client's requests, releases its locks, drops its subscriptions. Idempotent.
    /// Device loop.
    func releaseEverything(of origin: any RequestOrigin) {
        let id = origin.clientID
        subscriptions[id] = nil
        inflightPerClient[id] = nil
        for (key, op) in inflight where key.client == id {
            inflight[key] = nil
            if !op.accessory.unpark(op) { op.cancel() }
        }
        for a in accessories { a.clientLeft(id) }
    }

    private func handleOnLoop(_ request: Request, from origin: any RequestOrigin) {
        let id = request.id
        func fail(_ e: AccessoryError) { origin.respond(id: id, result: .failure(e.rpcError)) }
        func ok(_ r: any JSONEncodable & Sendable) { origin.respond(id: id, result: .success(r)) }

        // Every method that names an accessory: it must exist, and the caller must be allowed.
        // One the caller may not use answers exactly as one that does not exist (same code, same
        // message): its name is not to be learnt by probing.
        var target: Accessory?
        if let name = request.method.device {
            guard let a = lookUp(name), a.access.allows(uid: origin.uid, gid: origin.gid, groups: origin.groups)
            else { return fail(.unknownDevice(name)) }
            target = a
        }

        switch request.method {
        case .devicesList:
            let visible = accessories.filter {
                $0.access.allows(uid: origin.uid, gid: origin.gid, groups: origin.groups)
            }
            ok(
                DevicesListResult(
                    devices: visible.map {
                        DeviceSummary(
                            name: $0.name,
                            state: $0.reportedState,
                            transport: $0.transportName,
                            path: $0.devicePath,
                            queueDepth: Int64($0.queueDepth)
                        )
                    }
                )
            )
        case .deviceStatus:
            ok(withViews(target!.statusJSON(), of: target!.name))
        case .transact(let p):
            submit(.transact(p.data), on: target!, timeoutMs: p.timeoutMs, waitMs: p.waitMs, id: id, origin: origin)
        case .write(let p):
            submit(.write(p.data), on: target!, timeoutMs: p.timeoutMs, waitMs: p.waitMs, id: id, origin: origin)
        case .read(let p):
            let maxFrames = Int(p.maxFrames ?? 1)
            submit(
                .read(maxFrames: maxFrames),
                on: target!,
                timeoutMs: p.timeoutMs,
                waitMs: nil,
                id: id,
                origin: origin
            )
        case .subscribe(let p):
            var s = subscriptions[origin.clientID] ?? Subscription(origin: origin, devices: [], events: [])
            if let d = p.device { s.devices?.insert(d) } else { s.devices = nil }
            s.events.formUnion(p.events ?? EventKind.defaultKinds)
            subscriptions[origin.clientID] = s
            ok(subscriptionJSON(s))
        case .unsubscribe(let p):
            guard var s = subscriptions[origin.clientID] else { return ok(JSONValue.object(["subscribed": false])) }
            if let events = p.events { s.events.subtract(events) }
            if let d = p.device, p.events == nil {
                if s.devices == nil {
                    s.devices = Set(accessories.map(\.name))
                }
                s.devices?.remove(d)
            } else if p.device == nil && p.events == nil {
                s.events = []
            }
            if s.events.isEmpty || s.devices?.isEmpty == true {
                subscriptions[origin.clientID] = nil
                return ok(JSONValue.object(["subscribed": false]))
            }
            subscriptions[origin.clientID] = s
            ok(subscriptionJSON(s))
        case .lock(let p):
            let a = target!
            // Every lock has a lease: one that gives none gets the default; a longer one than the
            // limit is refused rather than shortened, so the holder always knows when it ends.
            let leaseMs = p.leaseMs.map(Int.init) ?? limits.defaultLeaseMs
            guard leaseMs <= limits.maxLeaseMs else {
                return fail(.leaseTooLong(requested: leaseMs, limit: limits.maxLeaseMs))
            }
            a.acquireLock(
                clientID: origin.clientID,
                timeoutMs: p.timeoutMs.map(Int.init),
                leaseMs: leaseMs,
                granted: {
                    let o: JSONObject = ["locked": true, "device": .string(a.name), "lease_ms": .int(leaseMs)]
                    ok(JSONValue.object(o))
                },
                failed: { fail($0) }
            )
        case .unlock:
            do {
                try target!.unlock(clientID: origin.clientID)
                ok(JSONValue.object(["unlocked": true, "device": .string(target!.name)]))
            } catch {
                fail(error)
            }
        case .control(let p):
            submit(.control(p), on: target!, timeoutMs: nil, waitMs: p.waitMs, id: id, origin: origin)
        case .attach(let p):
            submit(.attach, on: target!, timeoutMs: nil, waitMs: p.waitMs, id: id, origin: origin)
        case .cancel(let p):
            guard let op = inflight[InflightKey(client: origin.clientID, id: p.id)] else {
                return ok(CancelResult(cancelled: false))
            }
            if op.accessory.unpark(op) {
                op.replyWithoutRunning(.cancelled)
                return ok(CancelResult(cancelled: true))
            }
            // `cancel()` takes effect on a later turn, and may lose to what got there first: a
            // removal that is already cancelling it, or its answer. So the reply waits for the
            // request's own: `cancelled: true` exactly when that was the `cancelled` error.
            let answerRequest = op.onComplete
            op.onComplete = { op in
                answerRequest?(op)
                ok(CancelResult(cancelled: op.answeredCancelled))
            }
            op.cancel(error: OperationError.cancelled)
        case .clientsList:
            guard isAdministrator(origin) else {
                return origin.respond(id: id, result: .failure(Self.administratorsOnly(.clientsList)))
            }
            ok(clientsListJSON())
        case .clientDisconnect(let p):
            guard isAdministrator(origin) else {
                return origin.respond(id: id, result: .failure(Self.administratorsOnly(.clientDisconnect)))
            }
            switch disconnectClient(p.id, by: origin) {
            case .success(let result): ok(result)
            case .failure(let error): origin.respond(id: id, result: .failure(error))
            }
        case .daemonStatus:
            ok(JSONValue.object(daemonStatus(for: origin)))
        }
    }

    /// `daemon.status` for `origin`. Root and the daemon's own user get every figure; anyone
    /// else gets the version and counts of what they may see (the accessories they may use,
    /// their own requests): the number of clients, the daemon's load, its pid and uptime say
    /// what other users are doing, which is not theirs to know. Device loop.
    func daemonStatus(for origin: any RequestOrigin) -> JSONObject {
        let privileged = AccessControl.isPrivileged(uid: origin.uid)
        var o: JSONObject
        if privileged {
            o = daemonStatus()
        } else {
            o = JSONObject(members: daemonStatus().members.filter { $0.key == "version" })
        }
        let visible =
            privileged
            ? accessories
            : accessories.filter {
                $0.access.allows(uid: origin.uid, gid: origin.gid, groups: origin.groups)
            }
        o.append("accessories", .int(visible.count))
        o.append("accessories_ready", .int(visible.filter { $0.state == .ready }.count))
        o.append("requests_in_flight", .int(privileged ? inflightCount : inflightPerClient[origin.clientID] ?? 0))
        o.append("views", viewsSummaryJSON(of: visible.map(\.name)))
        return o
    }

    private func subscriptionJSON(_ s: Subscription) -> JSONValue {
        var o: JSONObject = ["subscribed": true]
        o.append("devices", s.devices.map { .array($0.sorted().map(JSONValue.string)) } ?? .string("all"))
        o.append("events", .array(s.events.map(\.rawValue).sorted().map(JSONValue.string)))
        return .object(o)
    }

    private func submit(
        _ kind: RequestOperation.Kind,
        on a: Accessory,
        timeoutMs: Int64?,
        waitMs: Int64?,
        id: RequestID,
        origin: any RequestOrigin
    ) {
        let key = InflightKey(client: origin.clientID, id: id)
        let held = inflightPerClient[origin.clientID] ?? 0
        guard held < limits.maxRequestsPerClient else {
            origin.respond(
                id: id,
                result: .failure(AccessoryError.tooManyRequests(limit: limits.maxRequestsPerClient).rpcError)
            )
            return
        }
        let timeoutMs = a.responseTimeoutMs(requested: timeoutMs.map(Int.init))
        let op = RequestOperation(accessory: a, kind: kind, timeoutMs: timeoutMs, requestID: id, origin: origin)
        // In the table until answered (the accessory's `onRequestCompleted`). Inserted and
        // checked in one lookup: an id already in use puts the request in progress back.
        if let inProgress = inflight.updateValue(op, forKey: key) {
            inflight[key] = inProgress
            origin.respond(
                id: id,
                result: .failure(
                    RPCError(.invalidRequest, "request id \(id) is already in use by a request in progress")
                )
            )
            return
        }
        inflightPerClient[origin.clientID] = held + 1
        a.submit(op, waitMs: waitMs.map(Int.init))
    }
}

/// Names a request in progress: request ids are each client's own, so both are needed. Device loop.
struct InflightKey: Hashable {
    let client: UInt64
    let id: RequestID

    /// An integer id (the usual kind) is mixed with the client into one word: one value to hash
    /// instead of three (client, case, payload), with equality still comparing both.
    func hash(into hasher: inout Hasher) {
        switch id {
        case .int(let value): hasher.combine(client &* 0x9E37_79B9_7F4A_7C15 ^ UInt64(bitPattern: value))
        case .string(let value):
            hasher.combine(client)
            hasher.combine(value)
        }
    }
}
