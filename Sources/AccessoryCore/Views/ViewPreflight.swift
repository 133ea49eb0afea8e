import AccessoryConfig
import SystemCalls

/// The checks of `views:` that look at the system: owners and groups that exist, directories
/// that exist and are safe, paths not taken by something the daemon did not make, and no two
/// views (or a view and the socket) on one path once relative paths are placed. Run by
/// `--check-config`, at start and before a reload is applied: a configuration that fails them is
/// not used, so nothing is half-created.
///
/// Threading: reads the user database and the file system. Any thread.
public enum ViewPreflight {
    public static func issues(_ configuration: Configuration, runtimeDirectory: String) -> [ConfigIssue] {
        let map = configuration.sourceMap
        var issues: [ConfigIssue] = []
        func report(_ path: String, _ message: String) {
            issues.append(
                ConfigIssue(.error, file: map.file, line: map.line(for: path), keyPath: path, message: message)
            )
        }
        var taken: [String: String] = [configuration.socket.path: "the control socket (socket.path)"]
        for (a, accessory) in configuration.accessories.enumerated() {
            for (v, view) in accessory.views.enumerated() {
                let key = "accessories[\(a)].views[\(v)]"
                do { _ = try ViewIdentity.resolve(view) } catch {
                    switch error {
                    case .unknownUser, .ownerNeedsCapability: report(key + ".owner", error.description)
                    case .unknownGroup, .groupNeedsMembership: report(key + ".group", error.description)
                    default: break
                    }
                }
                // The form of the path is the validator's; a malformed one is not looked at.
                guard !view.pty.isEmpty, !view.pty.utf8.contains(0), !view.pty.hasSuffix("/") else { continue }
                let path = view.linkPath(runtimeDirectory: runtimeDirectory)
                if let other = taken[path] {
                    report(key + ".pty", "\(path) is also \(other)")
                    continue
                }
                taken[path] = "the path of a view of accessory \"\(accessory.name)\""
                let link = ViewLink(path: path)
                if !view.pty.hasPrefix("/") {
                    // The daemon makes tty/ (and the runtime directory) only if missing: what is
                    // found must be its own, as at start (``ViewSet``), else it would not start
                    // without saying why a view is absent.
                    if let problem = relativeFolderProblem(runtimeDirectory: runtimeDirectory, path: path) {
                        report(key + ".pty", problem.description)
                        continue
                    }
                    if (try? FileIO.status(ofPath: link.directory)) == nil { continue }  // Made at start.
                }
                do { _ = try link.inspect() } catch { report(key + ".pty", error.description) }
            }
        }
        return issues
    }

    /// Why the runtime directory or its `tty/` folder, where they exist, may not hold views: each
    /// must be the daemon's user's, writable by nobody else (``DirectorySafety/privateTo(uid:)``).
    static func relativeFolderProblem(runtimeDirectory: String, path: String) -> ViewError? {
        let rule = DirectorySafety.privateTo(uid: UserDatabase.effectiveUserID)
        for folder in [runtimeDirectory, runtimeDirectory + "/" + ViewSettings.relativeFolder] {
            guard let found = try? FileIO.status(ofPath: folder) else { return nil }
            if let problem = rule.problem(path: folder, status: found) { return .unsafeDirectory(path: path, problem) }
        }
        return nil
    }
}
