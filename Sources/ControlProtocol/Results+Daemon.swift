import JSONCodec

/// The result of `daemon.status`:
/// `{version, pid, uptime_s, clients, clients_accepted, clients_rejected, requests_decoded,
/// decode_errors, input_deferrals, clients_timed_out, clients_accepted_in_reserve, batches_refused,
/// replies_too_large, accessories, accessories_ready, requests_in_flight, views}`.
/// Only root and the daemon's own user get the process's and the control server's figures
/// (``process``); anyone else gets the version and counts of what they may see.
///
/// Threading: a value. Any thread.
package struct DaemonStatusResult: Sendable, Hashable, JSONObjectEncodable {
    /// Left out when not known (a registry without a daemon around it, in tests).
    package var version: String?
    package var process: Process?
    /// The accessories the caller may see, and how many of them are ready.
    package var accessories: Int64 = 0
    package var accessoriesReady: Int64 = 0
    /// All requests in flight for an administrator, the caller's own for anyone else.
    package var requestsInFlight: Int64 = 0
    /// The views of the accessories the caller may see.
    package var views: [ViewSummary] = []

    package init(version: String? = nil, process: Process? = nil) {
        self.version = version
        self.process = process
    }

    /// The daemon process's figures.
    ///
    /// Threading: a value. Any thread.
    package struct Process: Sendable, Hashable {
        package var pid: Int64
        package var uptimeS: Int64
        /// The control server's counters, while it is there.
        package var server: Server?

        package init(pid: Int64, uptimeS: Int64, server: Server?) {
            self.pid = pid
            self.uptimeS = uptimeS
            self.server = server
        }
    }

    /// The control server's counters.
    ///
    /// Threading: a value. Any thread.
    package struct Server: Sendable, Hashable {
        /// Connected now.
        package var clients: Int64
        package var clientsAccepted: Int64
        /// Refused over the client limit.
        package var clientsRejected: Int64
        package var requestsDecoded: Int64
        package var decodeErrors: Int64
        /// Reads put off to the next turn of the loop by the input budget.
        package var inputDeferrals: Int64
        /// Closed for completing no request line within `limits.idle_connection_timeout_ms`.
        package var clientsTimedOut: Int64
        /// Accepted past `limits.max_clients`, in the reserve for root and the daemon's user.
        package var clientsAcceptedInReserve: Int64
        /// Batches refused whole before any element ran (their reply could not fit).
        package var batchesRefused: Int64
        /// Replies replaced by an error because they did not fit in `limits.client_outbound_bytes`.
        package var repliesTooLarge: Int64

        package init(
            clients: Int64,
            clientsAccepted: Int64,
            clientsRejected: Int64,
            requestsDecoded: Int64,
            decodeErrors: Int64,
            inputDeferrals: Int64,
            clientsTimedOut: Int64 = 0,
            clientsAcceptedInReserve: Int64 = 0,
            batchesRefused: Int64 = 0,
            repliesTooLarge: Int64 = 0
        ) {
            self.clients = clients
            self.clientsAccepted = clientsAccepted
            self.clientsRejected = clientsRejected
            self.requestsDecoded = requestsDecoded
            self.decodeErrors = decodeErrors
            self.inputDeferrals = inputDeferrals
            self.clientsTimedOut = clientsTimedOut
            self.clientsAcceptedInReserve = clientsAcceptedInReserve
            self.batchesRefused = batchesRefused
            self.repliesTooLarge = repliesTooLarge
        }
    }

    package func encodeMembers(into object: inout JSONMembers) {
        if let version { object.add("version", version) }
        if let process {
            object.add("pid", process.pid)
            object.add("uptime_s", process.uptimeS)
            if let s = process.server {
                object.add("clients", s.clients)
                object.add("clients_accepted", s.clientsAccepted)
                object.add("clients_rejected", s.clientsRejected)
                object.add("requests_decoded", s.requestsDecoded)
                object.add("decode_errors", s.decodeErrors)
                object.add("input_deferrals", s.inputDeferrals)
                object.add("clients_timed_out", s.clientsTimedOut)
                object.add("clients_accepted_in_reserve", s.clientsAcceptedInReserve)
                object.add("batches_refused", s.batchesRefused)
                object.add("replies_too_large", s.repliesTooLarge)
            }
        }
        object.add("accessories", accessories)
        object.add("accessories_ready", accessoriesReady)
        object.add("requests_in_flight", requestsInFlight)
        object.add("views", views)
    }
}

/// The result of `clients.list`: `{"clients":[…]}`, in connection order.
///
/// Threading: a value. Any thread.
package struct ClientsListResult: Sendable, Hashable, JSONObjectEncodable {
    package var clients: [ClientSummary]

    package init(clients: [ClientSummary]) { self.clients = clients }

    package func encodeMembers(into object: inout JSONMembers) {
        object.add("clients", clients)
    }
}

/// One connected client in `clients.list`: `{id, pid, uid, user, command, connected_since_ms,
/// locks, attached, subscribed, requests_in_flight}`.
///
/// Threading: a value. Any thread.
package struct ClientSummary: Sendable, Hashable, JSONObjectEncodable {
    /// What `client.disconnect` takes.
    package var id: Int64
    package var pid: Int64
    package var uid: Int64
    /// The uid's user name; `null` if it has none.
    package var user: String?
    /// The process's command name (`view <path>` for a pty view); `null` if unknown.
    package var command: String?
    package var connectedSinceMs: Int64
    /// The accessories whose lock it holds.
    package var locks: [String]
    /// The accessory it is attached to; `null` if none.
    package var attached: String?
    package var subscribed: Subscribed
    package var requestsInFlight: Int64

    /// What a client subscribes to: every accessory it may use (`"all"`), or these (`[…]`, empty
    /// when it has no subscription).
    ///
    /// Threading: a value. Any thread.
    package enum Subscribed: Sendable, Hashable {
        case all
        case devices([String])
    }

    package init(
        id: Int64,
        pid: Int64,
        uid: Int64,
        user: String?,
        command: String?,
        connectedSinceMs: Int64,
        locks: [String],
        attached: String?,
        subscribed: Subscribed,
        requestsInFlight: Int64
    ) {
        self.id = id
        self.pid = pid
        self.uid = uid
        self.user = user
        self.command = command
        self.connectedSinceMs = connectedSinceMs
        self.locks = locks
        self.attached = attached
        self.subscribed = subscribed
        self.requestsInFlight = requestsInFlight
    }

    package func encodeMembers(into object: inout JSONMembers) {
        object.add("id", id)
        object.add("pid", pid)
        object.add("uid", uid)
        object.add("user", user)
        object.add("command", command)
        object.add("connected_since_ms", connectedSinceMs)
        object.add("locks", locks)
        object.add("attached", attached)
        switch subscribed {
        case .all: object.add("subscribed", "all")
        case .devices(let devices): object.add("subscribed", devices)
        }
        object.add("requests_in_flight", requestsInFlight)
    }
}
