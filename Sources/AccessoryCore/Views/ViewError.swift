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
    /// `owner:` names another user, and the daemon may not give files away (no `CAP_CHOWN`).
    case ownerNeedsCapability(owner: String, uid: UInt32)
    /// `group:` names a group the daemon is not in, and it may not give files away.
    case groupNeedsMembership(group: String, gid: UInt32)
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
        case .ownerNeedsCapability(let owner, let uid):
            return "owner \(owner) (uid \(uid)) of a view: giving the pty to another user needs CAP_CHOWN, which "
                + "this daemon does not have (uid \(UserDatabase.effectiveUserID); the packaged unit grants no "
                + "capabilities); leave owner: out and let group: and perm: say who may open it"
        case .groupNeedsMembership(let group, let gid):
            return "group \(group) (gid \(gid)) of a view: this daemon (uid \(UserDatabase.effectiveUserID)) is "
                + "not in that group and may not give files to it without CAP_CHOWN; add the group to the "
                + "daemon's (SupplementaryGroups= in the unit) or choose one it is in"
        case .system(let what, let error):
            return "\(what): \(error)"
        }
    }
}
