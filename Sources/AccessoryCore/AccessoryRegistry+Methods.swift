import ControlProtocol
import Operations

/// The methods that name no accessory, or name one optionally (a subscription). Device loop only.
extension AccessoryRegistry {
    /// The accessories the caller may use, in configuration order.
    func devicesList(_ caller: Caller) {
        loop.assertInLoop()
        let origin = caller.origin
        let visible = accessories.filter { $0.access.allows(uid: origin.uid, gid: origin.gid, groups: origin.groups) }
        let rows = visible.map {
            DeviceSummary(
                name: $0.name,
                state: $0.reportedState,
                transport: $0.transportName,
                path: $0.devicePath,
                queueDepth: Int64($0.queueDepth)
            )
        }
        caller.succeed(DevicesListResult(devices: rows))
    }

    /// Adds the named accessory (or all the caller may use) and the events (or the default ones)
    /// to the caller's subscription.
    func subscribe(_ p: SubscriptionParams, _ caller: Caller) {
        loop.assertInLoop()
        let client = caller.origin.clientID
        var s = subscriptions[client] ?? Subscription(origin: caller.origin, devices: [], events: [])
        if let d = p.device { s.devices?.insert(d) } else { s.devices = nil }
        s.events.formUnion(p.events ?? EventKind.defaultKinds)
        subscriptions[client] = s
        caller.succeed(SubscriptionResult.subscribed(devices: s.devices, events: s.events))
    }

    /// Removes the events named (from every accessory), or else the accessory named, or else
    /// everything; a subscription left with no event or no accessory ends.
    func unsubscribe(_ p: SubscriptionParams, _ caller: Caller) {
        loop.assertInLoop()
        let client = caller.origin.clientID
        guard var s = subscriptions[client] else { return caller.succeed(SubscriptionResult.unsubscribed) }
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
            subscriptions[client] = nil
            return caller.succeed(SubscriptionResult.unsubscribed)
        }
        subscriptions[client] = s
        caller.succeed(SubscriptionResult.subscribed(devices: s.devices, events: s.events))
    }

    /// Cancels one of the caller's own requests in progress; answers whether it was the cancel
    /// that ended it.
    func cancel(_ p: CancelParams, _ caller: Caller) {
        loop.assertInLoop()
        guard let op = inflight.find(client: caller.origin.clientID, id: p.id) else {
            return caller.succeed(CancelResult(cancelled: false))
        }
        if op.accessory.unpark(op) {
            op.replyWithoutRunning(.cancelled)
            return caller.succeed(CancelResult(cancelled: true))
        }
        // `cancel()` takes effect on a later turn, and may lose to what got there first: a
        // removal that is already cancelling it, or its answer. So the reply waits for the
        // request's own: `cancelled: true` exactly when that was the `cancelled` error.
        let answerRequest = op.onComplete
        op.onComplete = { op in
            answerRequest?(op)
            caller.succeed(CancelResult(cancelled: op.answeredCancelled))
        }
        op.cancel(error: OperationError.cancelled)
    }

    func clientsList(_ caller: Caller) {
        loop.assertInLoop()
        guard isAdministrator(caller.origin) else { return caller.fail(Self.administratorsOnly(.clientsList)) }
        caller.succeed(clientsListResult())
    }

    func clientDisconnect(_ p: ClientParams, _ caller: Caller) {
        loop.assertInLoop()
        guard isAdministrator(caller.origin) else { return caller.fail(Self.administratorsOnly(.clientDisconnect)) }
        switch disconnectClient(p.id, by: caller.origin) {
        case .success(let result): caller.succeed(result)
        case .failure(let error): caller.fail(error)
        }
    }

    /// `daemon.status` for `origin`. Root and the daemon's own user get every figure; anyone
    /// else gets the version and counts of what they may see (the accessories they may use,
    /// their own requests): the number of clients, the daemon's load, its pid and uptime say
    /// what other users are doing, which is not theirs to know. Device loop.
    func daemonStatus(for origin: any RequestOrigin) -> DaemonStatusResult {
        loop.assertInLoop()
        let privileged = AccessControl.isPrivileged(uid: origin.uid)
        var status = daemonStatus()
        // Of what the daemon adds, anyone else is shown the version and nothing more.
        if !privileged { status = DaemonStatusResult(version: status.version) }
        let visible =
            privileged
            ? accessories
            : accessories.filter {
                $0.access.allows(uid: origin.uid, gid: origin.gid, groups: origin.groups)
            }
        status.accessories = Int64(visible.count)
        status.accessoriesReady = Int64(visible.filter { $0.state == .ready }.count)
        status.requestsInFlight = Int64(privileged ? inflightCount : inflight.count(of: origin.clientID))
        status.views = viewSummaries(of: visible.map(\.name))
        return status
    }
}
