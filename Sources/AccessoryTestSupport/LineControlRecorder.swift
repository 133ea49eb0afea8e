import IOLoop
import SystemCalls

/// Lets a pty stand in for a UART's line controls on virtual time: the modem-line ioctls a pty
/// lacks (`TIOCMBIS`, `TIOCMBIC`, `TIOCMGET`) are answered through the system-call seam, the
/// break ioctls go through to the pty, and each of these calls is recorded with the instant of
/// `clock` it came at. Only calls on `fd` made by the thread that created the recorder count
/// (tests run in parallel in one process).
///
/// Threading: the test's thread, which drives `clock` and owns the port. ``calls`` may be read
/// from any thread.
package final class LineControlRecorder: Sendable {
    /// One line-control call: which, and how long after the recorder was made (virtual time).
    ///
    /// Threading: a value. Any thread.
    package struct Call: Equatable, Sendable, CustomStringConvertible {
        package let name: SyscallName
        package let at: Duration

        package init(_ name: SyscallName, at: Duration) {
            self.name = name
            self.at = at
        }

        package var description: String { "\(name) at \(at)" }
    }

    /// The calls recorded.
    package static let names: Set<SyscallName> = [.tiocmget, .tiocmbis, .tiocmbic, .tiocsbrk, .tioccbrk]

    private let recorded = Locked<[Call]>([])
    private let token: FaultInjection.Token

    /// Starts answering and recording the line controls on `fd`; TIOCMGET reports `inputs`.
    package init(fd: CInt, clock: EmbeddedLoop, inputs: CInt = 0) {
        let start = clock.now
        let thread = ThreadID.current
        let recorded = recorded
        token = FaultInjection.install { name, target in
            guard target == fd, thread.isCurrent, Self.names.contains(name) else { return nil }
            recorded.withLock { $0.append(Call(name, at: clock.now - start)) }
            switch name {
            case .tiocsbrk, .tioccbrk: return nil
            case .tiocmget: return .answer(inputs)
            default: return .answer(0)
            }
        }
    }

    /// The calls so far, in order.
    package var calls: [Call] { recorded.withLock { $0 } }

    /// Stops answering and recording.
    package func remove() { FaultInjection.remove(token) }
}
