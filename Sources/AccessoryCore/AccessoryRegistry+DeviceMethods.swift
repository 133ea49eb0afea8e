import ControlProtocol
import Operations

/// The methods on one accessory. Each gets the accessory resolved (it exists, and the caller may
/// use it). Device loop only.
extension AccessoryRegistry {
    func deviceStatus(of a: Accessory, _ caller: Caller) {
        loop.assertInLoop()
        var status = a.status(views: views.status(of: a.name))
        status.listeners = listeners.status(of: a.name)
        caller.succeed(status)
    }

    func transact(_ p: TransferParams, on a: Accessory, _ caller: Caller) {
        loop.assertInLoop()
        submit(.transact(p.data), on: a, timeoutMs: p.timeoutMs, waitMs: p.waitMs, caller)
    }

    func write(_ p: TransferParams, on a: Accessory, _ caller: Caller) {
        loop.assertInLoop()
        submit(.write(p.data), on: a, timeoutMs: p.timeoutMs, waitMs: p.waitMs, caller)
    }

    func read(_ p: ReadParams, on a: Accessory, _ caller: Caller) {
        loop.assertInLoop()
        submit(.read(maxFrames: Int(p.maxFrames ?? 1)), on: a, timeoutMs: p.timeoutMs, waitMs: nil, caller)
    }

    /// With an attach session's token (`session`): the session's own control, run inside it.
    func control(_ p: ControlParams, on a: Accessory, _ caller: Caller) {
        loop.assertInLoop()
        submit(.control(p), on: a, timeoutMs: nil, waitMs: p.waitMs, caller, session: p.session)
    }

    func attach(_ p: AttachParams, on a: Accessory, _ caller: Caller) {
        loop.assertInLoop()
        submit(.attach, on: a, timeoutMs: nil, waitMs: p.waitMs, caller)
    }

    /// Every lock has a lease: one that gives none gets the default; a longer one than the limit
    /// is refused rather than shortened, so the holder always knows when it ends.
    func lock(_ p: LockParams, on a: Accessory, _ caller: Caller) {
        loop.assertInLoop()
        let leaseMs = p.leaseMs.map(Int.init) ?? limits.defaultLeaseMs
        guard leaseMs <= limits.maxLeaseMs else {
            return caller.fail(.leaseTooLong(requested: leaseMs, limit: limits.maxLeaseMs))
        }
        let name = a.name
        a.acquireLock(
            clientID: caller.origin.clientID,
            timeoutMs: p.timeoutMs.map(Int.init),
            leaseMs: leaseMs,
            granted: { caller.succeed(LockResult(device: name, leaseMs: Int64(leaseMs))) },
            failed: { caller.fail($0) }
        )
    }

    func unlock(_ a: Accessory, _ caller: Caller) {
        loop.assertInLoop()
        do {
            try a.unlock(clientID: caller.origin.clientID)
            caller.succeed(UnlockResult(device: a.name))
        } catch {
            caller.fail(error)
        }
    }

    /// Queues a request on `a` (see ``Accessory/submit(_:waitMs:)``), within the client's
    /// `max_requests_per_client` and with an id no request of the client's in progress uses.
    private func submit(
        _ kind: RequestOperation.Kind,
        on a: Accessory,
        timeoutMs: Int64?,
        waitMs: Int64?,
        _ caller: Caller,
        session: String? = nil
    ) {
        let (id, origin) = (caller.id, caller.origin)
        let client = origin.clientID
        guard inflight.count(of: client) < limits.maxRequestsPerClient else {
            return caller.fail(.tooManyRequests(limit: limits.maxRequestsPerClient))
        }
        let timeoutMs = a.responseTimeoutMs(requested: timeoutMs.map(Int.init))
        let op = RequestOperation(accessory: a, kind: kind, timeoutMs: timeoutMs, requestID: id, origin: origin)
        // In the table until answered (the accessory's `onRequestCompleted`).
        guard inflight.insert(op, client: client) else {
            return caller.fail(RPCError(.invalidRequest, "request id \(id) is already in use by a request in progress"))
        }
        if let session {
            a.submitInSession(op, token: session)
        } else {
            a.submit(op, waitMs: waitMs.map(Int.init))
        }
    }
}
