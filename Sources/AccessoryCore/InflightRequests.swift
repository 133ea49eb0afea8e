import ControlProtocol

/// The requests that have not answered yet, by client and request id: what `cancel` finds, what
/// refuses a request id already in use, and what `limits.max_requests_per_client` counts.
///
/// Why not one dictionary by (client, id): every request inserted and removed an entry there
/// and counted itself in a second table by client, five hashed lookups a request. Here each
/// client's requests are an entry of their own, found without hashing when it is the client of
/// the last access (clients send request after request), and a client's first request in
/// progress is kept outside its table, so a client that asks one thing at a time never hashes.
/// A client's entry stays until ``removeClient(_:)`` (it left), so that it is not made again
/// for every request.
///
/// Threading: a value, owned by the registry. Device loop only.
struct InflightRequests {
    /// One client's requests in progress.
    final class ClientRequests {
        /// One request in progress (a client's only one, usually), or nil.
        var first: RequestOperation?
        /// The others, by id.
        var more: [RequestID: RequestOperation] = [:]
        var count: Int { (first == nil ? 0 : 1) + more.count }

        func find(_ id: RequestID) -> RequestOperation? {
            if let first, first.requestID == id { return first }
            return more.isEmpty ? nil : more[id]
        }

        var all: [RequestOperation] { (first.map { [$0] } ?? []) + more.values }
    }

    private var byClient: [UInt64: ClientRequests] = [:]
    /// The client of the last access and its entry.
    private var lastClient: UInt64 = 0
    private var lastEntry: ClientRequests?
    /// Requests in progress, every client's.
    private(set) var count = 0

    /// The entry of `client`, made if it has none.
    private mutating func entry(of client: UInt64) -> ClientRequests {
        if let lastEntry, lastClient == client { return lastEntry }
        let entry: ClientRequests
        if let known = byClient[client] {
            entry = known
        } else {
            entry = ClientRequests()
            byClient[client] = entry
        }
        lastClient = client
        lastEntry = entry
        return entry
    }

    /// How many requests `client` has in progress.
    func count(of client: UInt64) -> Int {
        if let lastEntry, lastClient == client { return lastEntry.count }
        return byClient[client]?.count ?? 0
    }

    /// Client `client`'s request `id` in progress, if any.
    func find(client: UInt64, id: RequestID) -> RequestOperation? {
        if let lastEntry, lastClient == client { return lastEntry.find(id) }
        return byClient[client]?.find(id)
    }

    /// Adds `op` as client `client`'s; false (and nothing added) if its id is in use by another
    /// request of the client's in progress.
    mutating func insert(_ op: RequestOperation, client: UInt64) -> Bool {
        let entry = entry(of: client)
        if let first = entry.first {
            if first.requestID == op.requestID { return false }
            if let inProgress = entry.more.updateValue(op, forKey: op.requestID) {
                // Put back: the id belongs to the request already in progress.
                entry.more[op.requestID] = inProgress
                return false
            }
        } else if entry.more.isEmpty || entry.more[op.requestID] == nil {
            entry.first = op
        } else {
            return false
        }
        count += 1
        return true
    }

    /// Removes `op` if it is in the table as client `client`'s.
    mutating func remove(_ op: RequestOperation, client: UInt64) {
        let entry: ClientRequests
        if let lastEntry, lastClient == client {
            entry = lastEntry
        } else {
            guard let known = byClient[client] else { return }
            entry = known
        }
        if entry.first === op {
            entry.first = nil
        } else {
            guard !entry.more.isEmpty, let found = entry.more[op.requestID], found === op else { return }
            entry.more[op.requestID] = nil
        }
        count -= 1
    }

    /// Forgets client `client` and returns its requests in progress.
    mutating func removeClient(_ client: UInt64) -> [RequestOperation] {
        if lastClient == client { lastEntry = nil }
        guard let entry = byClient.removeValue(forKey: client) else { return [] }
        let requests = entry.all
        count -= requests.count
        return requests
    }

    /// Requests in progress per client, for clients that have any.
    var countsByClient: [UInt64: Int] {
        byClient.compactMapValues { $0.count > 0 ? $0.count : nil }
    }
}
