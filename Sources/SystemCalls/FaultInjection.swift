import Synchronization

/// The test seam of the system-call layer: rules that make chosen calls fail or come up short.
///
/// A rule sees each wrapped call's name and fd and may answer with a fault; the first rule that
/// answers wins. Rules should filter on the fds they own, because tests run in parallel in one
/// process. When no rule is installed the cost is one relaxed atomic load per call.
///
/// Any thread. Rules run on the thread making the call (often a loop thread), so they must be
/// `@Sendable` and quick.
public enum FaultInjection {
    /// What a rule does to a call.
    public enum Fault: Sendable, Equatable {
        /// The call fails with this errno without reaching the kernel (`EINTR` is then retried).
        case error(Errno)
        /// A read or write moves at most this many bytes (a short read/write).
        case limit(Int)
        /// The call succeeds without reaching the kernel and returns `value`; a wrapper whose call
        /// reports through memory reports `value` instead (``Termios/modemLines(_:)``: the lines).
        /// What a pty cannot do, as a device that has it would.
        case answer(CInt)
    }

    public typealias Rule = @Sendable (SyscallName, CInt) -> Fault?

    /// A handle for removing an installed rule. Any thread.
    public struct Token: Sendable, Hashable {
        fileprivate let id: UInt64
    }

    private static let active = Atomic<Int>(0)
    private static let rules = Locked<[(UInt64, Rule)]>([])
    private static let nextID = Atomic<UInt64>(1)

    @usableFromInline
    static var isActive: Bool { active.load(ordering: .relaxed) > 0 }

    /// Installs a rule; returns the token that removes it. Any thread.
    @discardableResult
    public static func install(_ rule: @escaping Rule) -> Token {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        rules.withLock { $0.append((id, rule)) }
        active.add(1, ordering: .releasing)
        return Token(id: id)
    }

    /// Removes a rule. Any thread.
    public static func remove(_ token: Token) {
        let removed = rules.withLock { list -> Bool in
            guard let i = list.firstIndex(where: { $0.0 == token.id }) else { return false }
            list.remove(at: i)
            return true
        }
        if removed { active.subtract(1, ordering: .releasing) }
    }

    /// Runs `body` with `rule` installed. Any thread.
    public static func with<R, E: Error>(_ rule: @escaping Rule, _ body: () throws(E) -> R) throws(E) -> R {
        let token = install(rule)
        defer { remove(token) }
        return try body()
    }

    @usableFromInline
    static func fault(for name: SyscallName, fd: CInt) -> Fault? {
        // Copy the rules out so that no rule runs under the lock (a rule may itself log or count).
        let snapshot = rules.withLock { $0 }
        for (_, rule) in snapshot {
            if let f = rule(name, fd) { return f }
        }
        return nil
    }
}
