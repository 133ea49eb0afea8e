import SystemCalls

/// Why a view could not be made or published. Each description names the path, what is wrong
/// and what to do.
///
/// A value. Any thread.
public enum ViewError: Error, Sendable, Equatable, CustomStringConvertible {
    case directoryMissing(path: String, directory: String)
    case unsafeDirectory(path: String, DirectorySafetyError)
    /// Something the daemon did not make is at the path (a file, a folder, a device node).
    case occupied(path: String, kind: String, owner: UInt32)
    /// A symbolic link the daemon did not make is at the path: it is neither followed nor replaced.
    case foreignLink(path: String, target: String, owner: UInt32)
    case unknownUser(String)
    case unknownGroup(String)
    case system(String, SyscallError)

    public var description: String {
        switch self {
        case .directoryMissing(let path, let directory):
            return "cannot publish the view \(path): the directory \(directory) does not exist (create it, or give "
                + "a relative path to use the runtime directory's tty/ folder)"
        case .unsafeDirectory(let path, let problem):
            return "cannot publish the view \(path): \(problem)"
        case .occupied(let path, let kind, let owner):
            return "cannot publish the view \(path): \(kind) owned by uid \(owner) is already there; the daemon "
                + "replaces only the links it made (remove it, or choose another path)"
        case .foreignLink(let path, let target, let owner):
            return "cannot publish the view \(path): a symbolic link to \(target) owned by uid \(owner) is already "
                + "there and this daemon did not make it; it is neither followed nor replaced (remove it, or choose "
                + "another path)"
        case .unknownUser(let name):
            return "no user called \"\(name)\" (owner of a view)"
        case .unknownGroup(let name):
            return "no group called \"\(name)\" (group of a view)"
        case .system(let what, let error):
            return "\(what): \(error)"
        }
    }
}
