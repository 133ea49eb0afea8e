import SystemCalls

/// A fault rule that hits every matching system call exactly once: the first attempt of a call
/// gets the fault, the attempt after it goes through, then the next call's first attempt gets the
/// fault again. With `EINTR` that is "every call is interrupted once" (the seam retries); with
/// `EAGAIN` on writes, "every write first finds the buffer full".
///
/// A rule cannot tell one call from the retry of another, so attempts are paired per call name
/// and descriptor: an fd is owned by one loop thread, so its attempts alternate strictly.
///
/// Any thread (state under a lock).
package final class EveryCallFault: Sendable {
    private struct Key: Hashable {
        let name: SyscallName
        let fd: CInt
    }

    private let fault: FaultInjection.Fault
    private let matches: @Sendable (SyscallName, CInt) -> Bool
    /// The calls whose last attempt got the fault (their next attempt goes through).
    private let faulted = Locked<Set<Key>>([])
    private let count = Locked(0)
    private let names = Locked<Set<SyscallName>>([])

    package init(_ fault: FaultInjection.Fault, where matches: @escaping @Sendable (SyscallName, CInt) -> Bool) {
        self.fault = fault
        self.matches = matches
    }

    /// How many attempts got the fault so far.
    package var injected: Int { count.withLock { $0 } }

    /// The calls that got the fault at least once.
    package var injectedCalls: Set<SyscallName> { names.withLock { $0 } }

    /// Installs the rule; the token removes it.
    package func install() -> FaultInjection.Token {
        FaultInjection.install { [self] name, fd in
            guard matches(name, fd) else { return nil }
            let key = Key(name: name, fd: fd)
            let hit = faulted.withLock { set in set.remove(key) == nil ? set.insert(key).inserted : false }
            if hit {
                count.withLock { $0 += 1 }
                names.withLock { _ = $0.insert(name) }
            }
            return hit ? fault : nil
        }
    }
}
