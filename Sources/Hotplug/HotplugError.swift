import SystemCalls

/// Why hot-plug detection could not start. The messages are sentences a person reads in the log.
///
/// Any thread (a value).
package enum HotplugError: Error, Sendable, Equatable, CustomStringConvertible {
    /// libudev could not give a context, monitor or enumeration (`step` says which call failed).
    case udevUnavailable(step: String, errno: Errno?)
    /// The IOLoop refused the monitor's descriptor.
    case cannotRegister(SyscallError)
    /// A folder of device links could not be watched or read.
    case cannotWatch(path: String, SyscallError)

    package var description: String {
        switch self {
        case .udevUnavailable(let step, let errno):
            let reason = errno.map { ": \($0.description) (errno \($0.rawValue))" } ?? ""
            return "udev unavailable: \(step) failed\(reason)"
        case .cannotRegister(let error):
            return "udev unavailable: cannot watch the monitor socket: \(error)"
        case .cannotWatch(let path, let error):
            return "cannot watch \(path): \(error)"
        }
    }
}
