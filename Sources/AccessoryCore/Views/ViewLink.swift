import SystemCalls

/// The symbolic link that publishes a view's pty slave (`/dev/pts/N`) at the view's path.
///
/// The link is made under a temporary, unpredictable name in the same directory and renamed over
/// the path, so a program opening the path sees the old link or the new one, never none. Every
/// call works on names inside the directory held open by descriptor (opened without following a
/// link), and what is at the path is looked at without following it. Only a link the daemon made
/// is ever replaced or removed: a symbolic link owned by the daemon's user that points into
/// `/dev/pts/` (one left by an earlier run counts: its pty died with that run). Anything else at
/// the path (a file, a folder, another user's link, a link elsewhere) is refused and left as it is.
///
/// The directory must pass ``DirectorySafety/publishingFor(uid:)`` (this user's or root's, not
/// open to every user's renames unless sticky), as the control socket's does.
///
/// Threading: a value. Any thread (the daemon uses it on the device loop).
struct ViewLink: Sendable, Equatable {
    let path: String

    var directory: String { PathParts.folder(of: path) }

    var name: String { PathParts.name(of: path) }

    static let ptyFolder = "/dev/pts/"
    /// How many taken temporary names are tried before publishing gives up.
    static let temporaryNameAttempts = 16

    /// What is at the path now: nil when nothing, else the target of a link the daemon made.
    /// Throws for anything that may not be replaced, and when the directory is missing or unsafe.
    func inspect() throws(ViewError) -> String? {
        let dir = try openDirectory()
        return try inspect(in: dir.rawValue)
    }

    private func openDirectory() throws(ViewError) -> OwnedFD {
        do {
            try DirectorySafety.publishingFor(uid: UserDatabase.effectiveUserID).check(directory)
        } catch {
            if case .cannotInspect(_, let e) = error, e.errno == .noSuchFileOrDirectory || e.errno == .notDirectory {
                throw .directoryMissing(path: path, directory: directory)
            }
            throw .unsafeDirectory(path: path, error)
        }
        do { return try FileIO.openDirectory(directory) } catch {
            throw .system("cannot open the directory \(directory) of the view \(path)", error)
        }
    }

    private func inspect(in dir: CInt) throws(ViewError) -> String? {
        let found: FileStatus?
        do { found = try FileIO.status(of: name, in: dir) } catch {
            throw .system("cannot inspect the view path \(path)", error)
        }
        guard let found else { return nil }
        guard found.kind == .symbolicLink else {
            throw .occupied(path: path, kind: found.kind.rawValue, owner: found.owner)
        }
        let target: String
        do { target = try FileIO.readLink(name, in: dir) } catch {
            throw .system("cannot read the link at the view path \(path)", error)
        }
        guard found.owner == UserDatabase.effectiveUserID, target.hasPrefix(Self.ptyFolder) else {
            throw .foreignLink(path: path, target: target, owner: found.owner)
        }
        return target
    }

    /// Points the path at `target` (the view's slave), replacing a link the daemon made.
    func publish(target: String) throws(ViewError) {
        let dir = try openDirectory()
        _ = try inspect(in: dir.rawValue)
        // Unpredictable names (getrandom(2), through the standard library's system generator):
        // in a sticky directory others may write, names made of the pid and a counter could all
        // be made first by another user, and the view would never be published.
        var generator = SystemRandomNumberGenerator()
        var attempt = 0
        while true {
            let temporary = ".\(name)." + String(generator.next(), radix: 16)
            do {
                try FileIO.symlink(target: target, named: temporary, in: dir.rawValue)
            } catch {
                // Taken (by chance, or left by a crash): another name, a bounded number of times.
                if error.errno == .fileExists && attempt < Self.temporaryNameAttempts {
                    attempt += 1
                    continue
                }
                throw .system("cannot make a link in \(directory) for the view \(path)", error)
            }
            do { try FileIO.rename(temporary, to: name, in: dir.rawValue) } catch {
                try? FileIO.unlink(temporary, in: dir.rawValue)
                throw .system("cannot rename a link to the view path \(path)", error)
            }
            return
        }
    }

    /// Removes the path if it is still the link to `target` the daemon made; anything else there
    /// (replaced meanwhile) is left alone. Errors are ignored: the daemon is letting go of it.
    func remove(target: String) {
        guard let dir = try? FileIO.openDirectory(directory) else { return }
        guard let found = try? FileIO.status(of: name, in: dir.rawValue), found.kind == .symbolicLink,
            found.owner == UserDatabase.effectiveUserID,
            (try? FileIO.readLink(name, in: dir.rawValue)) == target
        else { return }
        try? FileIO.unlink(name, in: dir.rawValue)
    }
}
