import SystemCalls

extension IOLoop {
    /// Watches a descriptor the caller keeps owning (the caller closes it after cancelling the
    /// source). Loop thread only.
    ///
    /// - Parameters:
    ///   - fd: an open, non-blocking descriptor not already watched by this loop.
    ///   - interest: what to listen for; changeable later with ``FDSource/setInterest(_:)``.
    ///   - modes: the run modes it fires in (`.common` by default).
    ///   - handler: called on the loop thread with what happened.
    public func addSource(
        fd: CInt,
        interest: FDInterest,
        modes: [RunMode] = [.common],
        handler: @escaping (FDEvents) -> Void
    ) throws(SyscallError) -> FDSource {
        try register(fd: fd, owned: nil, interest: interest, modes: modes, handler: handler)
    }

    /// Watches a descriptor and takes ownership of it: cancelling the source, or shutting the loop
    /// down, deregisters and then closes it. Loop thread only.
    public func addSource(
        owning descriptor: consuming OwnedFD,
        interest: FDInterest,
        modes: [RunMode] = [.common],
        handler: @escaping (FDEvents) -> Void
    ) throws(SyscallError) -> FDSource {
        let fd = descriptor.rawValue
        return try register(fd: fd, owned: descriptor, interest: interest, modes: modes, handler: handler)
    }

    private func register(
        fd: CInt,
        owned: consuming OwnedFD?,
        interest: FDInterest,
        modes: [RunMode],
        handler: @escaping (FDEvents) -> Void
    ) throws(SyscallError) -> FDSource {
        preconditionInLoop()
        precondition(sourceByFD(fd) == nil, "fd \(fd) is already watched by loop \(name)")
        let id = takeRegistrationID()
        let source = FDSource(
            fd: fd,
            owned: owned,
            id: id,
            interest: interest,
            modes: modes,
            loop: self,
            handler: handler
        )
        do {
            for mode in concreteModes(modes) {
                let state = try modeState(mode)
                try Epoll.control(state.epfd, .add, fd: fd, events: source.epollEvents, data: source.epollData)
                source.registeredIn.insert(mode)
            }
        } catch {
            // Undo partial registration; the descriptor (if owned) goes back to being closed by
            // the source's drop.
            deregister(source)
            throw error
        }
        storeSource(source)
        return source
    }

    func reregister(_ source: FDSource) {
        for mode in source.registeredIn {
            guard let ep = modeStateIfPresent(mode)?.epfd else { continue }
            // MOD on a registered fd can only fail for programmer errors (EBADF, ENOENT, EINVAL).
            do {
                try Epoll.control(ep, .modify, fd: source.fd, events: source.epollEvents, data: source.epollData)
            } catch {
                preconditionFailure("epoll_ctl MOD fd \(source.fd): \(error)")
            }
        }
    }

    func deregister(_ source: FDSource) {
        for mode in source.registeredIn {
            guard let ep = modeStateIfPresent(mode)?.epfd else { continue }
            // ENOENT/EBADF here means the caller closed the fd before cancelling: a bug, but the
            // kernel already forgot the registration, so there is nothing left to undo.
            try? Epoll.control(ep, .delete, fd: source.fd, events: [], data: 0)
        }
        source.registeredIn.removeAll()
        removeSource(source)
    }
}
