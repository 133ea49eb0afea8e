import SystemCalls

/// How a trace file is opened when other local users may be hostile: the folder must be one
/// they cannot fill with names of their own (``DirectorySafety/publishingFor(uid:)``: the
/// daemon's user's or root's, and writable by every user only if sticky); a file already there is
/// appended to only if it is a regular file of the daemon's user with one name (opened with
/// `O_NOFOLLOW`, judged by `fstat` of what was opened); a missing one is made with
/// `O_CREAT | O_EXCL`, so it is certainly the daemon's. A file another user made at the name
/// (0666, say, to read what follows) is refused, never written.
///
/// Threading: stateless. Any thread.
enum TraceFileOpening {
    /// How many times a name that appears and disappears between the open and the create is
    /// tried (someone else playing with the folder; the daemon gives up rather than spin).
    static let attempts = 8

    /// Refuses the folder of `path` unless it passes ``DirectorySafety/publishingFor(uid:)``.
    static func checkFolder(of path: String) throws(TraceError) {
        let folder = PathParts.folder(of: path)
        do {
            try DirectorySafety.publishingFor(uid: UserDatabase.effectiveUserID).check(folder)
        } catch {
            throw TraceError("not using trace file \(path): \(error.finding(whose: "the daemon's"))\(remedy(error))")
        }
    }

    private static func remedy(_ error: DirectorySafetyError) -> String {
        switch error {
        case .writableByOthers(let path, _, _):
            "; other users could put files of theirs at its names (chmod o-w \(path), or chmod +t)"
        case .ownedByAnother, .notADirectory:
            "; another user could put files of theirs at its names (use a folder of the daemon's user or root)"
        case .cannotCreate, .cannotInspect:
            ""
        case .unsafeLinkTarget(_, _, let target):
            remedy(target)
        }
    }

    /// `path` opened to append: the file there if it passes ``check(_:path:)``, else made now.
    static func open(_ path: String, mode: UInt32) throws(TraceError) -> OpenedFile {
        for _ in 0..<attempts {
            do {
                let opened = try FileIO.openForAppending(path, mode: mode, creating: .never)
                try check(opened.status, path: path)
                return opened
            } catch let error as TraceError {
                throw error
            } catch let error as SyscallError where error.errno == .noSuchFileOrDirectory {
                // Missing: made below.
            } catch let error as SyscallError {
                throw describe(error, path: path)
            } catch {
                throw TraceError("cannot open trace file \(path): \(error)")
            }
            do {
                let made = try FileIO.openForAppending(path, mode: mode, creating: .exclusive)
                try check(made.status, path: path)
                return made
            } catch let error as TraceError {
                throw error
            } catch let error as SyscallError where error.errno == .fileExists {
                continue  // Made by someone meanwhile: judged as any file found, next round.
            } catch let error as SyscallError {
                throw describe(error, path: path)
            } catch {
                throw TraceError("cannot create trace file \(path): \(error)")
            }
        }
        throw TraceError("cannot open trace file \(path): its name kept appearing and disappearing")
    }

    /// A new empty file of the daemon's, made with `O_EXCL` under an unpredictable name in the
    /// folder of `path` (`.<name>.<random>`); its name is put in `name`.
    static func createTemporary(beside path: String, mode: UInt32, name: inout String) throws(TraceError) -> OpenedFile
    {
        let folder = PathParts.folder(of: path)
        let base = PathParts.name(of: path)
        var generator = SystemRandomNumberGenerator()  // getrandom(2) on Linux
        for _ in 0..<attempts {
            name = folder + "/." + base + "." + String(generator.next(), radix: 16)
            do {
                return try FileIO.openForAppending(name, mode: mode, creating: .exclusive)
            } catch  where error.errno == .fileExists {
                continue
            } catch {
                throw TraceError("cannot create a new trace file in \(folder): \(error.errno.description)")
            }
        }
        throw TraceError("cannot create a new trace file in \(folder): every name tried was taken")
    }

    /// A regular file of the daemon's user with one name, or refused.
    static func check(_ status: FileStatus, path: String) throws(TraceError) {
        guard status.kind == .regular else {
            throw TraceError("cannot use trace file \(path): it is \(status.kind.rawValue), not a regular file")
        }
        guard status.linkCount == 1 else {
            throw TraceError("cannot use trace file \(path): it has \(status.linkCount) names (a hard link; refused)")
        }
        let uid = UserDatabase.effectiveUserID
        guard status.owner == uid else {
            throw TraceError(
                "cannot use trace file \(path): it belongs to uid \(status.owner) (mode "
                    + "\(String(status.permissions, radix: 8))), not to the daemon's uid \(uid); another user may "
                    + "have made it to read the traffic. Remove it, or choose another file"
            )
        }
    }

    static func describe(_ error: SyscallError, path: String) -> TraceError {
        switch error.errno {
        case .tooManySymbolicLinkLevels:
            TraceError("cannot open trace file \(path): it is a symbolic link (refused)")
        case .noSuchAddressOrDevice:
            TraceError("cannot open trace file \(path): it is a FIFO (refused)")
        default:
            TraceError("cannot open trace file \(path): \(error.errno.description)")
        }
    }

}
