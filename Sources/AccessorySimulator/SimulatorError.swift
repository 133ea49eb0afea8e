import SystemCalls

/// Why a simulated accessory could not start or a script could not be read. Any thread (a value).
package enum SimulatorError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A system call failed while opening or setting up the pty.
    case system(SyscallError)
    /// The symbolic link could not be made (its folder missing, no permission, …).
    case link(path: String, SyscallError)
    /// A configuration value is out of range.
    case invalidConfiguration(String)
    /// The script file is unreadable or malformed, at `line` (0 when unknown).
    case script(file: String, line: Int, message: String)
    /// The loop the accessory was to run on has shut down.
    case loopShutDown

    package var description: String {
        switch self {
        case .system(let e): return e.description
        case .link(let path, let e): return "cannot publish the link \(path): \(e)"
        case .invalidConfiguration(let m): return "invalid configuration: \(m)"
        case .script(let file, let line, let message):
            return line > 0 ? "\(file):\(line): \(message)" : "\(file): \(message)"
        case .loopShutDown: return "the loop has shut down"
        }
    }
}
