import SystemCalls

/// Why the control socket could not be set up. Each case's description is a sentence for the
/// person starting the daemon.
///
/// Threading: a value. Any thread.
package enum ControlServerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path does not fit a Unix socket address (with room for the temporary name used while
    /// the socket file is prepared).
    case pathTooLong(path: String, maxBytes: Int)
    /// Another process answers on the socket: a second daemon, most likely.
    case alreadyListening(path: String)
    /// Something that is not a stream socket has the name; it is left alone.
    case notASocket(path: String, kind: String)
    /// The socket's directory does not exist.
    case directoryMissing(path: String, directory: String)
    /// The daemon's user may not create files in the socket's directory.
    case directoryNotWritable(path: String, directory: String, uid: UInt32)
    /// The socket's directory could be swapped or written by another user (see
    /// ``DirectorySafety/publishingFor(uid:)``).
    case unsafeDirectory(path: String, DirectorySafetyError)
    /// The configured socket group is not in the group database.
    case unknownGroup(String)
    /// The socket file could not be given to the configured group.
    case cannotSetGroup(path: String, group: String, SyscallError)
    /// An inherited descriptor (socket activation) is not a listening Unix stream socket.
    case notAListeningSocket(fd: CInt)
    /// Any other failure: what was being done, and the system call error.
    case system(String, SyscallError)

    package var description: String {
        switch self {
        case .pathTooLong(let path, let max):
            return "the control socket path \(path) is \(path.utf8.count) bytes long; at most \(max) bytes fit"
        case .alreadyListening(let path):
            return "another accessoryd is already listening on \(path); stop it first or configure another socket path"
        case .notASocket(let path, let kind):
            return "\(path) exists and is \(kind), not a stream socket; refusing to replace it "
                + "(remove it yourself if it is not needed, or configure another socket path)"
        case .directoryMissing(let path, let directory):
            return "cannot create the control socket \(path): the directory \(directory) does not exist"
        case .directoryNotWritable(let path, let directory, let uid):
            return "cannot create the control socket \(path): the directory \(directory) is not writable by "
                + "uid \(uid) (permission denied)"
        case .unsafeDirectory(let path, let problem):
            return "not creating the control socket \(path): \(problem)"
        case .unknownGroup(let group):
            return "the control socket's group \"\(group)\" does not exist"
        case .cannotSetGroup(let path, let group, let error):
            let hint = error.errno == .notPermitted ? " (the daemon's user must be a member of that group)" : ""
            return "cannot give the control socket \(path) to group \(group): \(error)\(hint)"
        case .notAListeningSocket(let fd):
            return "the inherited descriptor \(fd) is not a listening Unix stream socket "
                + "(check the .socket unit: ListenStream= must be a path)"
        case .system(let context, let error):
            return "\(context): \(error)"
        }
    }
}
