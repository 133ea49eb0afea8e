import ControlProtocol
import SystemCalls

/// The administrator's view: `clients.list` and `client.disconnect`, for root and the daemon's
/// own user. Anyone else gets `permission_denied` (1006) and learns nothing about other clients,
/// not even how many there are. Device loop only (except ``clientJoined(_:)``).
extension AccessoryRegistry {
    /// A client connected: it is listed from now on, even before its first request. Any thread.
    public func clientJoined(_ origin: any RequestOrigin) {
        loop.execute { [self] in clients[origin.clientID] = origin }
    }

    /// Whether `origin` may see and end other clients: root, or the user the daemon runs as.
    func isAdministrator(_ origin: any RequestOrigin) -> Bool {
        AccessControl.isPrivileged(uid: origin.uid)
    }

    static func administratorsOnly(_ method: MethodName) -> RPCError {
        RPCError(.permissionDenied, "\(method.rawValue) is for root and the daemon's own user only")
    }

    /// `clients.list`: every connected client, in connection order.
    func clientsListResult() -> ClientsListResult {
        var held: [UInt64: (locks: [String], attached: String?)] = [:]
        for a in accessories {
            if let holder = a.lease.holder { held[holder, default: ([], nil)].locks.append(a.name) }
            if let raw = a.rawSession { held[raw.origin.clientID, default: ([], nil)].attached = a.name }
        }
        let requests = inflight.countsByClient
        let list = clients.values.sorted { $0.clientID < $1.clientID }.map { c in
            let id = c.clientID
            // A pty view is a client of the daemon's own: named by its path.
            let command =
                (c as? PtyView).map { "view \($0.link.path)" } ?? (c as? NetworkConnection).map {
                    "\($0.settings.kind.rawValue) \($0.settings.listen) from \($0.remote)"
                } ?? ProcessIdentity.commandName(ofProcess: c.pid)
            let subscribed: ClientSummary.Subscribed =
                switch subscriptions[id]?.devices {
                case nil where subscriptions[id] != nil: .all
                case let devices?: .devices(devices.sorted())
                default: .devices([])
                }
            return ClientSummary(
                id: Int64(clamping: id),
                pid: Int64(c.pid),
                uid: Int64(c.uid),
                user: ProcessIdentity.userName(ofID: c.uid),
                command: command,
                connectedSinceMs: c.connectedSinceMs,
                locks: held[id]?.locks ?? [],
                attached: held[id]?.attached,
                subscribed: subscribed,
                requestsInFlight: Int64(requests[id] ?? 0)
            )
        }
        return ClientsListResult(clients: list)
    }

    /// Ends client `id`'s connection and, at once rather than when the close comes round, what
    /// it held: its queued requests are cancelled, its executing one finished, its locks
    /// released (the next waiter is served), its subscriptions dropped.
    func disconnectClient(_ id: UInt64, by admin: any RequestOrigin) -> Result<DisconnectResult, RPCError> {
        guard let target = clients[id] else {
            return .failure(RPCError(.invalidParams, "no client with id \(id) is connected (see clients.list)"))
        }
        log(.notice, "client \(id) (pid \(target.pid), uid \(target.uid)) disconnected by uid \(admin.uid)")
        target.disconnect(reason: "disconnected by an administrator (uid \(admin.uid))")
        releaseEverything(of: target)
        return .success(DisconnectResult(id: Int64(clamping: id)))
    }
}
