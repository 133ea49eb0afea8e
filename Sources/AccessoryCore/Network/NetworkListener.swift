import AccessoryConfig
import ControlProtocol
import Glibc
import IOLoop
import SystemCalls

/// A TCP listener on a loopback address for one accessory (its `network:` entry): accepts
/// connections, finds out whose they are, checks them against the accessory's `access:`, and
/// makes each a ``NetworkConnection``.
///
/// Whose: a TCP connection carries no credentials, so the owner of the peer's socket is asked
/// of the kernel without blocking the loop (``PeerLookup``), and that uid's groups of the user
/// database. A peer whose owner cannot be found (it closed meanwhile, the kernel did not answer
/// within ``peerLookupDeadline``) is refused, and said in the log.
///
/// Device loop only.
final class NetworkListener {
    let accessoryName: String
    let settings: NetworkListenerSettings
    let loop: IOLoop
    unowned let registry: AccessoryRegistry
    private var socket: OwnedFD?
    private var source: FDSource?
    private(set) var connections: [NetworkConnection] = []
    /// Accepted connections whose owner is being looked up (they count against the limit).
    private(set) var lookups: [PeerLookup] = []
    /// How long a lookup may wait for the kernel (its answer is normally there at once).
    var peerLookupDeadline: Duration = .milliseconds(200)
    private(set) var counters = ListenerStatus.Counters()
    /// Makes client ids (the set's, shared by its listeners).
    let nextClientID: () -> UInt64

    /// Accepted per readiness event, so that a flood of connections cannot hold the loop.
    static let acceptBatch = 16

    /// Binds and listens; throws what bind said (the port is taken, the address is not this
    /// host's).
    init(
        accessoryName: String,
        settings: NetworkListenerSettings,
        registry: AccessoryRegistry,
        nextClientID: @escaping () -> UInt64
    ) throws(SyscallError) {
        self.accessoryName = accessoryName
        self.settings = settings
        self.registry = registry
        self.loop = registry.loop
        self.nextClientID = nextClientID
        let fd = try InetSocket.listening(
            on: InetEndpoint(address: settings.listen.address, port: settings.listen.port)
        )
        let raw = fd.rawValue
        socket = consume fd
        source = try loop.addSource(fd: raw, interest: .readable) { [weak self] _ in self?.acceptPending() }
    }

    /// The port bound (the configured one, or the kernel's pick for port 0 in tests).
    var boundEndpoint: InetEndpoint? {
        guard let fd = socket?.rawValue else { return nil }
        return try? InetSocket.localEnd(fd)
    }

    /// Closes the listener and every connection. Device loop.
    func close(reason: String) {
        loop.assertInLoop()
        source?.cancel()
        source = nil
        socket.take()?.close()
        for c in connections { c.close(reason: reason) }
        connections = []
        for l in lookups {
            l.cancel()
            l.client.take()?.close()
        }
        lookups = []
    }

    /// The accessory's state changed. Device loop.
    func accessoryChanged(ready: Bool) {
        for c in connections { c.accessoryChanged(ready: ready) }
    }

    private func acceptPending() {
        loop.assertInLoop()
        guard let fd = socket?.rawValue else { return }
        for _ in 0..<Self.acceptBatch {
            let accepted: OwnedFD?
            do { accepted = try Socket.accept(fd) } catch {
                registry.log(.warning, "listener \(settings.listen) of \(accessoryName): accept: \(error)")
                return
            }
            guard let client = accepted else { return }
            lookUpOwner(client)
        }
    }

    private func lookUpOwner(_ client: consuming OwnedFD) {
        let where_ = "listener \(settings.listen) of \(accessoryName)"
        let most = registry.limits.listenerMaxConnections
        guard connections.count + lookups.count < most else {
            counters.refusedFull += 1
            registry.log(
                .warning,
                "\(where_): refused a connection: \(most) are open (limits.listener_max_connections)"
            )
            return client.close()
        }
        let local: InetEndpoint
        let remote: InetEndpoint
        do {
            local = try InetSocket.localEnd(client.rawValue)
            remote = try InetSocket.remoteEnd(client.rawValue)
        } catch {
            counters.refusedUnknown += 1
            registry.log(.warning, "\(where_): refused a connection: its owner cannot be looked up: \(error)")
            return client.close()
        }
        let lookup = PeerLookup(client: client, local: local, remote: remote)
        lookups.append(lookup)
        lookup.begin(on: loop, deadline: peerLookupDeadline) { [weak self] l, outcome in self?.lookupEnded(l, outcome) }
    }

    /// The owner is known (or cannot be): the connection is refused, or checked against `access:`.
    private func lookupEnded(_ lookup: PeerLookup, _ outcome: PeerLookup.Outcome) {
        lookups.removeAll { $0 === lookup }
        guard let client = lookup.client.take() else { return }
        let where_ = "listener \(settings.listen) of \(accessoryName)"
        let remote = lookup.remote
        switch outcome {
        case .failed(let why):
            counters.refusedUnknown += 1
            registry.log(
                .warning,
                "\(where_): refused the connection from \(remote): its owner cannot be looked up: \(why)"
            )
            client.close()
        case .noSocket:
            counters.refusedUnknown += 1
            registry.log(
                .warning,
                "\(where_): refused the connection from \(remote): the kernel knows no local socket at that end "
                    + "(gone already, or not this host's), so whose it is cannot be told"
            )
            client.close()
        case .owner(let uid):
            admit(client, uid: uid, remote: remote)
        }
    }

    /// A connection whose owner is `uid`: checked against the accessory's `access:`, then made a
    /// ``NetworkConnection``.
    private func admit(_ client: consuming OwnedFD, uid: uid_t, remote: InetEndpoint) {
        let where_ = "listener \(settings.listen) of \(accessoryName)"
        let found = try? UserDatabase.groups(ofUser: uid)
        // A uid without an entry has no groups: only a rule naming the uid can let it in.
        let gid = found?.primary ?? gid_t.max
        let groups = found?.all ?? []
        guard let a = registry.accessory(named: accessoryName), a.access.allows(uid: uid, gid: gid, groups: groups)
        else {
            counters.refusedAccess += 1
            registry.log(
                .warning,
                "\(where_): refused the connection from \(remote): uid \(uid) may not use \(accessoryName)"
            )
            return client.close()
        }
        let connection: NetworkConnection
        do {
            connection = try NetworkConnection(
                socket: client,
                clientID: nextClientID(),
                credentials: (uid, gid, groups),
                accessoryName: accessoryName,
                settings: settings,
                remote: remote,
                loop: loop,
                registry: registry
            )
        } catch {
            registry.log(.error, "\(where_): cannot watch a connection: \(error)")
            return
        }
        counters.accepted += 1
        connections.append(connection)
        registry.clients[connection.clientID] = connection
        connection.onClosed = { [weak self] c in self?.connections.removeAll { $0 === c } }
        registry.log(.info, "\(connection.description): connected")
        connection.start()
    }
}
