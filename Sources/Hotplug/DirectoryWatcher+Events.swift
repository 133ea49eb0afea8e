import IOLoop
import SystemCalls

extension DirectoryWatcher {
    static let folderMask: Inotify.Mask = [
        .create, .delete, .movedFrom, .movedTo, .deleteSelf, .moveSelf, .onlyDirectory,
    ]
    static let ancestorMask: Inotify.Mask = [.create, .movedTo, .deleteSelf, .moveSelf, .onlyDirectory]
    /// Bounds the walk up and down when folders keep appearing and vanishing under us.
    static let attachAttempts = 64

    /// Puts the one watch on the folder, or on its nearest existing ancestor when it is missing,
    /// and returns the link names in the folder (empty when it is missing). Device loop only.
    func attach() throws(HotplugError) -> [String] {
        guard let fd = source?.fd else { return [] }
        if let old = watch { try? Inotify.removeWatch(fd, watch: old) }
        watch = nil
        target = nil
        var attempts = 0
        var path = directory
        var child: String?  // nil while trying the folder itself
        while true {
            attempts += 1
            let wd: CInt
            do throws(SyscallError) {
                wd = try Inotify.addWatch(fd, path: path, mask: child == nil ? Self.folderMask : Self.ancestorMask)
            } catch
                where path != "/" && path != "."
                && (error.errno == .noSuchFileOrDirectory || error.errno == .notDirectory)
            {
                child = Self.lastComponent(of: path)
                path = Self.parent(of: path)
                continue
            } catch {
                throw .cannotWatch(path: path, error)
            }
            watch = wd
            guard let awaited = child else {
                target = .folder
                return try linkNames()
            }
            // The child may have been made between the failed watch of it and this one: then start
            // again from the folder.
            if attempts < Self.attachAttempts, Self.mayBeFolder(path == "/" ? "/" + awaited : path + "/" + awaited) {
                try? Inotify.removeWatch(fd, watch: wd)
                watch = nil
                path = directory
                child = nil
                continue
            }
            target = .ancestor(parent: path, child: awaited)
            return []
        }
    }

    /// The names in the folder that count as links: symbolic links and device nodes that are not
    /// temporaries. Device loop only.
    func linkNames() throws(HotplugError) -> [String] {
        do {
            return try FileIO.listDirectory(directory).filter(isLink(named:))
        } catch {
            throw .cannotWatch(path: directory, error)
        }
    }

    func isLink(named name: String) -> Bool {
        guard !Self.isTemporary(name), let status = try? FileIO.status(ofPath: path(of: name)) else { return false }
        return status.kind == .symbolicLink || status.kind == .characterDevice
    }

    /// Acts on one inotify event. Device loop only.
    func handle(_ event: Inotify.Event) {
        if event.mask.contains(.queueOverflow) {
            resynchronize()
            return
        }
        guard event.watch == watch, let target else { return }  // a watch already replaced
        switch target {
        case .folder:
            if !event.mask.isDisjoint(with: [.deleteSelf, .moveSelf, .ignored]) {
                resynchronize()
            } else if !event.mask.isDisjoint(with: [.create, .movedTo]) {
                guard isLink(named: event.name) else { return }
                known.insert(event.name)
                onEvent(.appeared(path: path(of: event.name)))
            } else if !event.mask.isDisjoint(with: [.delete, .movedFrom]), known.remove(event.name) != nil {
                onEvent(.disappeared(path: path(of: event.name)))
            }
        case .ancestor(_, let child):
            if !event.mask.isDisjoint(with: [.deleteSelf, .moveSelf, .ignored]) || event.name == child {
                resynchronize()
            }
        }
    }

    /// Re-attaches (the folder may have appeared, vanished or been replaced, or events were lost)
    /// and reports the difference between what was known and what is there now. Device loop only.
    func resynchronize() {
        let now: Set<String>
        do {
            now = Set(try attach())
        } catch {
            // Nothing can be watched (the inotify watch limit is reached, say): report everything
            // gone rather than pretend, and try again later, as no event will come to prompt it.
            now = []
            scheduleRetry()
        }
        let gone = known.subtracting(now).sorted()
        let new = now.subtracting(known).sorted()
        known = now
        for name in gone where source != nil { onEvent(.disappeared(path: path(of: name))) }
        for name in new where source != nil { onEvent(.appeared(path: path(of: name))) }
    }

    private func scheduleRetry() {
        guard source != nil, retryTimer?.isValid != true else { return }
        retryTimer = loop.scheduleTimer(at: loop.now + retryDelay, repeating: nil, modes: [.common]) {
            [weak self] in
            guard let self, self.source != nil else { return }
            self.resynchronize()
        }
    }

    /// A folder, or a link that may lead to one. Any thread.
    static func mayBeFolder(_ path: String) -> Bool {
        guard let status = try? FileIO.status(ofPath: path) else { return false }
        return status.kind == .directory || status.kind == .symbolicLink
    }

    static func parent(of path: String) -> String { PathParts.folder(of: path) }

    static func lastComponent(of path: String) -> String { PathParts.name(of: path) }
}
