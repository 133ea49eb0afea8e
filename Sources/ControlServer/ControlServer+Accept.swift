import ControlProtocol
import IOLoop
import SystemCalls

extension ControlServer {
    /// Connections accepted per readiness event before other work gets a turn.
    static let acceptsPerEvent = 64

    /// The listening socket is readable: accept what is pending. Control loop only.
    func acceptReady() {
        loop.assertInLoop()
        for _ in 0..<Self.acceptsPerEvent {
            guard state == .running, let listenFD = listenSource?.fd else { return }
            let accepted: OwnedFD?
            do {
                accepted = try Socket.accept(listenFD)
            } catch {
                if acceptFailed(error) { continue }
                return
            }
            guard let fd = accepted else { return }
            let ended = acceptPause.succeeded()
            if ended > 0 {
                logger.log(.notice, "accepting clients on \(socketName) again after \(ended) failed attempts")
            }
            if connections.count >= limits.maxClients + limits.reservedConnections {
                refuse(fd)
            } else {
                // Past maxClients, only a reserve for root and the daemon's user (``open(_:)``).
                open(fd)
            }
        }
    }

    /// Handles an `accept` error; returns whether to try the next connection at once.
    private func acceptFailed(_ error: SyscallError) -> Bool {
        switch error.errno {
        case .connectionAbort, .protocolError, .notPermitted:
            // That one connection is gone or was refused by policy; the next may be fine.
            logger.log(.debug, "accept on \(socketName): \(error)")
            return true
        default:
            // Out of descriptors or memory (or anything unexpected): the socket stays readable, so
            // retrying now would spin. Pause it and retry on a timer.
            counters.acceptErrors.increment()
            listenSource?.setInterest(.none)
            let delay = acceptPause.failed { [weak self] in
                guard let self, self.state == .running else { return }
                self.listenSource?.setInterest(.readable)
            }
            let level: ControlServerLogger.Level = acceptPause.failures == 1 ? .error : .debug
            logger.log(level, "accept on \(socketName) failed: \(error); pausing new connections for \(delay)")
            return false
        }
    }

    /// Over ``ControlServerLimits/maxClients`` (and its reserve, or not allowed to use it): a
    /// one-line error naming the limit and its value, then close.
    private func refuse(_ fd: consuming OwnedFD) {
        let max = limits.maxClients
        let reserve = limits.reservedConnections
        // Past the reserve too, the error names both settings: raising max_clients alone is the fix
        // for everyone, but root is refused only once the reserve is full as well.
        let pastReserve = connections.count >= max + reserve && reserve > 0
        let which =
            pastReserve
            ? "limits.max_clients \(max) and limits.reserved_connections \(reserve)"
            : "limits.max_clients \(max)"
        let error = RPCError(
            code: Self.tooManyClientsErrorCode,
            message: "too many clients are connected (\(which)); try again later",
            data: .object(["reason": .string("too_many_clients"), "limit": .int(max)])
        )
        refuse(fd, error, why: "\(connections.count) clients are connected (\(which))")
    }

    /// A one-line error, then close; logged at most once a second (with a count of the others).
    private func refuse(_ fd: consuming OwnedFD, _ error: RPCError, why: String) {
        counters.rejectedOverLimit.increment()
        let (emit, suppressed) = rejectionLog.admit(now: loop.now.nanoseconds)
        if emit {
            let who = (try? Socket.peerCredentials(fd.rawValue)).map { " from pid \($0.pid), uid \($0.uid)" } ?? ""
            let more = suppressed > 0 ? " (\(suppressed) more refused since the last report)" : ""
            logger.log(.warning, "refused a connection\(who): \(why)\(more)")
        }
        var line: [UInt8] = []
        ResponseEncoder.failure(id: nil, error: error, into: &line)
        // Best effort: a fresh socket's buffer takes one short line.
        _ = try? line.withUnsafeBytes { bytes throws(SyscallError) in try Socket.send(fd.rawValue, from: bytes) }
        fd.close()
    }

    /// Makes a connection for an accepted socket. Control loop only.
    private func open(_ fd: consuming OwnedFD) {
        loop.assertInLoop()
        let credentials: ClientCredentials
        do {
            credentials = try ClientCredentials.ofPeer(fd.rawValue)
        } catch {
            logger.log(.warning, "dropped a connection whose credentials cannot be read: \(error)")
            fd.close()
            return
        }
        if let why = credentials.groupsUnknown {
            // A kernel without SO_PEERGROUPS lacks it for every client: said loudly once.
            logger.log(
                warnedGroupsUnknown ? .debug : .warning,
                "\(credentials): supplementary groups unknown (\(why)); access rules match its primary group only"
            )
            warnedGroupsUnknown = true
        }
        let uid = credentials.uid
        let privileged = limits.connectionLimitExemptUIDs.contains(uid)
        let inReserve = connections.count >= limits.maxClients
        if inReserve && !privileged {
            refuse(fd)
            return
        }
        let ofUID = connectionsPerUID[uid] ?? 0
        if ofUID >= limits.maxConnectionsPerUID && !privileged {
            let limit = limits.maxConnectionsPerUID
            let error = RPCError(
                code: Self.tooManyClientsErrorCode,
                message:
                    "uid \(uid) already has \(limit) connections (limits.max_connections_per_uid); close one and try again",
                data: .object(["reason": .string("too_many_connections_for_uid"), "limit": .int(limit)])
            )
            refuse(fd, error, why: "uid \(uid) has \(limit) connections (limits.max_connections_per_uid \(limit))")
            return
        }
        let connection = ClientConnection(id: nextConnectionID, credentials: credentials, server: self)
        nextConnectionID += 1
        do {
            connection.source = try loop.addSource(owning: fd, interest: .readable) { [connection] events in
                connection.handleEvents(events)
            }
        } catch {
            logger.log(.error, "cannot watch a new client connection: \(error)")
            return
        }
        // From now on a sender's thread may write to the socket itself (``ConnectionOutput``).
        if let fd = connection.source?.fd { connection.output.withLock { $0.fd = fd } }
        connections[connection.id] = connection
        connectionsPerUID[uid] = ofUID + 1
        counters.clients.increment()
        counters.acceptedTotal.increment()
        if inReserve {
            counters.acceptedInReserve.increment()
            logger.log(.notice, "\(connection) connected in the reserve kept for root and the daemon's user")
        } else {
            logger.log(.debug, "\(connection) connected")
        }
        connection.startFirstRequestTimer()
        handler.connectionDidOpen(connection)
    }
}
