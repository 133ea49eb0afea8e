import SystemCalls

/// What can go wrong talking to the service manager. Each case reads as a sentence in a log line.
///
/// Threading: a value. Any thread.
package enum SystemdError: Error, Sendable, Equatable, CustomStringConvertible {
    /// `NOTIFY_SOCKET` is set but is not an address we can send to.
    case badNotifySocket(String, reason: String)
    /// Sending a notification failed (the socket went away, permission denied, …).
    case notifyFailed(address: String, SyscallError)
    /// The service manager's queue is full; the notification was dropped.
    case notifyDropped(address: String)
    /// `WATCHDOG_USEC` or `WATCHDOG_PID` is not a positive number.
    case badWatchdog(variable: String, value: String)
    /// `LISTEN_PID` or `LISTEN_FDS` is not a number we can use.
    case badListenVariable(variable: String, value: String)
    /// `LISTEN_FDNAMES` has a different number of names than `LISTEN_FDS` says.
    case listenNamesMismatch(names: Int, descriptors: Int)
    /// A descriptor `LISTEN_FDS` promises is not open.
    case descriptorNotOpen(CInt)
    /// A system call failed while taking over inherited descriptors.
    case system(String, SyscallError)

    package var description: String {
        switch self {
        case .badNotifySocket(let value, let reason):
            "NOTIFY_SOCKET=\(value) cannot be used: \(reason); not notifying the service manager"
        case .notifyFailed(let address, let error):
            "cannot notify the service manager at \(address): \(error)"
        case .notifyDropped(let address):
            "the service manager at \(address) is not reading notifications (queue full); one was dropped"
        case .badWatchdog(let variable, let value):
            "\(variable)=\(value) is not a positive integer; the watchdog is off"
        case .badListenVariable(let variable, let value):
            "\(variable)=\(value) is not a valid number; ignoring socket activation"
        case .listenNamesMismatch(let names, let descriptors):
            "LISTEN_FDNAMES has \(names) names but LISTEN_FDS=\(descriptors); ignoring socket activation"
        case .descriptorNotOpen(let fd):
            "LISTEN_FDS promises descriptor \(fd) but it is not open; ignoring socket activation"
        case .system(let what, let error):
            "\(what): \(error)"
        }
    }
}
