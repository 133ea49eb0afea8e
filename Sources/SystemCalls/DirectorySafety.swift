import Glibc

/// Whether a directory is safe to keep this process's files in, when another local user may be
/// hostile: that user must not be able to have created it, to swap it for a symbolic link, or
/// to add, rename or replace names in it. Checked with `lstat`, so a symbolic link is seen as one.
///
/// A symbolic link in the directory's place is followed only when nobody else can have made or
/// swapped it: the link is owned by root or by `uid` (a link's owner is the user who made it;
/// only root can give one away), it sits in a directory owned by root or by `uid` that nobody
/// else may write, and the directory it leads to passes the same rule, in a parent nobody else
/// may rename it in. systemd makes such links itself (with `DynamicUser=`, `/var/log/NAME` leads
/// to `/var/log/private/NAME`, made by PID 1 in root's 0755 `/var/log`). Any other link is
/// refused, whoever it points to.
///
/// A value. Any thread.
public enum DirectorySafety: Sendable, Equatable {
    /// The process's own directory (its runtime directory, the simulators' links): a real
    /// directory owned by `uid`, writable by nobody else (no group or other write bit).
    case privateTo(uid: UInt32)
    /// A directory the process only publishes a file in (the configured socket's directory,
    /// often the administrator's): a real directory owned by `uid` or by root, and not writable
    /// by every user unless sticky (where nobody may rename or remove another user's names).
    case publishingFor(uid: UInt32)

    /// Why `status` (the `lstat` of `path`) fails this rule, or nil when it passes.
    public func problem(path: String, status: FileStatus) -> DirectorySafetyError? {
        guard status.kind == .directory else {
            return .notADirectory(path: path, kind: status.kind.rawValue, owner: status.owner)
        }
        switch self {
        case .privateTo(let uid):
            if status.owner != uid {
                return .ownedByAnother(path: path, owner: status.owner, mode: status.permissions, uid: uid)
            }
            if status.permissions & 0o022 != 0 {
                return .writableByOthers(path: path, owner: status.owner, mode: status.permissions)
            }
        case .publishingFor(let uid):
            if status.owner != uid && status.owner != 0 {
                return .ownedByAnother(path: path, owner: status.owner, mode: status.permissions, uid: uid)
            }
            if status.permissions & 0o002 != 0 && status.permissions & 0o1000 == 0 {
                return .writableByOthers(path: path, owner: status.owner, mode: status.permissions)
            }
        }
        return nil
    }

    /// Checks the directory `path` as it is now; returns its status.
    @discardableResult
    public func check(_ path: String) throws(DirectorySafetyError) -> FileStatus {
        let found: FileStatus?
        do { found = try FileIO.status(ofPath: path) } catch { throw .cannotInspect(path: path, error) }
        guard let found else {
            throw .cannotInspect(path: path, SyscallError(.lstat, .noSuchFileOrDirectory))
        }
        if found.kind == .symbolicLink { return try followTrustedLink(path, link: found) }
        if let problem = problem(path: path, status: found) { throw problem }
        return found
    }

    /// The uid whose directories this rule accepts (root's are accepted too where the rule says so).
    var uid: UInt32 {
        switch self {
        case .privateTo(let uid), .publishingFor(let uid): uid
        }
    }

    /// Whether a directory holding a name (a link, or the directory a link leads to) keeps others
    /// from adding, renaming or replacing it: root's or `uid`'s, and writable by nobody else
    /// unless sticky (then nobody may rename or remove another user's names).
    func holdsNamesSafely(_ parent: FileStatus?) -> Bool {
        guard let parent, parent.kind == .directory, parent.owner == 0 || parent.owner == uid else { return false }
        return parent.permissions & 0o022 == 0 || parent.permissions & 0o1000 != 0
    }

    /// Checks the symbolic link `path` (status `link`) and, when nobody else can have made it,
    /// the directory it leads to; returns that directory's status.
    private func followTrustedLink(_ path: String, link: FileStatus) throws(DirectorySafetyError) -> FileStatus {
        let planted = DirectorySafetyError.notADirectory(path: path, kind: link.kind.rawValue, owner: link.owner)
        guard link.owner == 0 || link.owner == uid else { throw planted }
        // The link's own folder must not let anyone else put a link there: sticky is not enough
        // (a name another user could have created first is exactly what is being guarded).
        let folder = try? FileIO.status(ofPath: PathParts.folder(of: path))
        guard let folder, folder.kind == .directory, folder.owner == 0 || folder.owner == uid,
            folder.permissions & 0o022 == 0
        else { throw planted }
        let resolved: String?
        do { resolved = try FileIO.resolvedPath(path) } catch { throw .cannotInspect(path: path, error) }
        guard let resolved else { throw .cannotInspect(path: path, SyscallError(.realpath, .noSuchFileOrDirectory)) }
        let target: FileStatus?
        do { target = try FileIO.status(ofPath: resolved) } catch { throw .cannotInspect(path: resolved, error) }
        guard let target else { throw .cannotInspect(path: resolved, SyscallError(.lstat, .noSuchFileOrDirectory)) }
        if let problem = problem(path: resolved, status: target) {
            throw .unsafeLinkTarget(path: path, target: resolved, problem)
        }
        let holder = PathParts.folder(of: resolved)
        let holderStatus = try? FileIO.status(ofPath: holder)
        guard holdsNamesSafely(holderStatus) else {
            let owner = holderStatus?.owner ?? 0
            let mode = holderStatus?.permissions ?? 0
            let problem: DirectorySafetyError =
                holderStatus?.kind == .directory && (owner == 0 || owner == uid)
                ? .writableByOthers(path: holder, owner: owner, mode: mode)
                : .ownedByAnother(path: holder, owner: owner, mode: mode, uid: uid)
            throw .unsafeLinkTarget(path: path, target: resolved, problem)
        }
        return target
    }

    /// Creates the directory `path` with permission bits `mode` when nothing has that name, then
    /// checks it, whether created now or found. Returns its status. The umask does not apply: a
    /// service's `UMask=0077` would otherwise make the 0755 that lets other users reach a view 0700.
    @discardableResult
    public func ensure(_ path: String, mode: UInt32 = 0o700) throws(DirectorySafetyError) -> FileStatus {
        do {
            try FileIO.makeDirectory(path, mode: mode)
            try FileIO.changeMode(path, to: mode)
        } catch  where error.errno == .fileExists {
            // Found: the check below decides whether it may be used.
        } catch {
            throw .cannotCreate(path: path, error)
        }
        return try check(path)
    }
}

/// Why a directory was refused (see ``DirectorySafety``). Each description names the directory,
/// what is wrong with it (owner and mode) and what to do.
///
/// A value. Any thread.
public enum DirectorySafetyError: Error, Sendable, Equatable, CustomStringConvertible {
    case notADirectory(path: String, kind: String, owner: UInt32)
    case ownedByAnother(path: String, owner: UInt32, mode: UInt32, uid: UInt32)
    case writableByOthers(path: String, owner: UInt32, mode: UInt32)
    case cannotCreate(path: String, SyscallError)
    case cannotInspect(path: String, SyscallError)
    /// A symbolic link nobody else can have made, leading to a directory that fails the rule.
    indirect case unsafeLinkTarget(path: String, target: String, DirectorySafetyError)

    /// The directory concerned.
    public var path: String {
        switch self {
        case .notADirectory(let path, _, _), .ownedByAnother(let path, _, _, _), .writableByOthers(let path, _, _),
            .cannotCreate(let path, _), .cannotInspect(let path, _), .unsafeLinkTarget(let path, _, _):
            path
        }
    }

    public var description: String {
        let remedy =
            "; another user may have put it there to intercept this daemon's files. Look at what is in it, "
            + "remove it, and start again (or choose another directory)"
        switch self {
        case .notADirectory, .ownedByAnother:
            return finding(whose: "this daemon's") + remedy
        case .writableByOthers(let path, _, _):
            return finding(whose: "this daemon's")
                + "; remove their write permission (chmod go-w \(path)) and start again"
        case .cannotCreate(let path, let error):
            return "cannot create the directory \(path): \(error)"
        case .cannotInspect(let path, let error):
            return "cannot inspect the directory \(path): \(error)"
        case .unsafeLinkTarget:
            return finding(whose: "this daemon's")  // the refused target's own description says what to do
        }
    }

    /// What is wrong, without the remedy: "unsafe directory D: it is owned by uid 65534 (mode
    /// 0777), not by `whose` uid 1000". The daemon and the clients (``SocketTrustError``) add
    /// their own remedy.
    public func finding(whose: String) -> String {
        switch self {
        case .notADirectory(let path, let kind, let owner):
            return "unsafe directory \(path): it is \(kind) owned by uid \(owner), not a directory"
        case .ownedByAnother(let path, let owner, let mode, let uid):
            return "unsafe directory \(path): it is owned by uid \(owner) (mode \(Self.octal(mode))), "
                + "not by \(whose) uid \(uid)"
        case .writableByOthers(let path, let owner, let mode):
            return "unsafe directory \(path): mode \(Self.octal(mode)) (owner uid \(owner)) lets other users "
                + "add or replace names in it"
        case .cannotCreate(let path, let error):
            return "cannot create the directory \(path): \(error)"
        case .cannotInspect(let path, let error):
            return "cannot inspect the directory \(path): \(error)"
        case .unsafeLinkTarget(let path, let target, let problem):
            return "unsafe directory \(path): it is a symbolic link to \(target), which is refused: \(problem)"
        }
    }

    static func octal(_ mode: UInt32) -> String {
        let digits = String(mode, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }
}
