import AccessoryConfig
import ControlProtocol
import IOLoop
import SystemCalls

/// The registry's pty views, by link path: made at start, reconciled by a reload (a view whose
/// accessory and settings are unchanged is kept as it is, with its pty and its program; changed
/// ones are made again; removed ones closed), and closed at shutdown. Views belong to accessory
/// names, not accessory objects, so a reload that replaces an accessory keeps its views.
///
/// Also what notices programs opening views nobody had open (``PtyView``): an inotify watch on
/// each view's pty (``ViewOpenWatch``), and one timer as the fallback.
///
/// Device loop only.
final class ViewSet {
    unowned let registry: AccessoryRegistry
    /// Where relative view paths go: `<runtimeDirectory>/tty/`.
    var runtimeDirectory = DaemonPaths.currentRuntimeDirectory()
    private(set) var views: [PtyView] = []
    /// Views that could not be made, with why (shown in `device.status`).
    private(set) var failures: [(accessory: String, path: String, error: ViewError)] = []
    private var byAccessory: [String: [PtyView]] = [:]
    /// The fallback poll (internal: a test stops it, to see the watch alone notice an open).
    private(set) lazy var poll = ViewPoll(scheduler: registry.loop, interval: Self.pollInterval)
    /// Notices at once that a program opened a view (the poll is the fallback).
    private lazy var openWatch = ViewOpenWatch(loop: registry.loop)
    /// View client ids are far above the control server's connection ids (counted from 1).
    private var nextClientID: UInt64 = 1 << 62

    /// How often views nobody has open are looked at.
    static let pollInterval: Duration = .milliseconds(200)

    init(registry: AccessoryRegistry) {
        self.registry = registry
    }

    var isEmpty: Bool { views.isEmpty }

    /// Makes, keeps or closes views so that they match `accessories`' `views:`. Device loop.
    func apply(_ accessories: [AccessorySettings]) {
        registry.loop.assertInLoop()
        var wanted: [(accessory: String, settings: ViewSettings, path: String)] = []
        for a in accessories {
            for v in a.views { wanted.append((a.name, v, v.linkPath(runtimeDirectory: runtimeDirectory))) }
        }
        var kept: [PtyView] = []
        for view in views {
            if wanted.contains(where: {
                $0.path == view.link.path && $0.accessory == view.accessoryName && $0.settings == view.settings
            }) {
                kept.append(view)
            } else {
                openWatch.forget(view)
                view.close(reason: "changed or removed by the configuration")
                store?.forget(name: Self.keptName(of: view.accessoryName, view.settings))
            }
        }
        views = kept
        failures = []
        for w in wanted where !kept.contains(where: { $0.link.path == w.path }) {
            do {
                let view = try make(accessory: w.accessory, settings: w.settings, path: w.path)
                views.append(view)
                openWatch.watch(view)
                // Opened before the watch was there: seen now rather than at the next poll.
                _ = view.checkOpened()
                registry.log(
                    .info,
                    "view \(w.path) of \(w.accessory): \(view.slavePath), \(w.settings.mode.rawValue)\(view.wasKept ? ", kept open across the restart" : "")"
                )
            } catch {
                failures.append((w.accessory, w.path, error))
                registry.log(.error, "view of \(w.accessory): \(error)")
            }
        }
        byAccessory = Dictionary(grouping: views, by: \.accessoryName)
        armPoll()
    }

    /// Where the views' ptys are kept across a restart, if anywhere (the accessories' store).
    private var store: (any DeviceDescriptorStore)? { registry.opener.store }

    static func keptName(of accessory: String, _ settings: ViewSettings) -> String {
        DeviceDescriptorStoreName.forView(accessory: accessory, settings: settings)
    }

    private func make(accessory: String, settings: ViewSettings, path: String) throws(ViewError) -> PtyView {
        let (uid, gid) = try ViewIdentity.resolve(settings)
        if !settings.pty.hasPrefix("/") { try ensureRelativeFolder() }
        let name = Self.keptName(of: accessory, settings)
        let kept = store?.takeKept(name: name)
        let view: PtyView
        do {
            view = try PtyView(
                accessoryName: accessory,
                settings: settings,
                linkPath: path,
                clientID: nextClientID,
                owner: uid,
                group: gid,
                loop: registry.loop,
                registry: registry,
                keptMaster: kept
            )
        } catch {
            // A kept pty that cannot serve again is closed (by the view) and dropped.
            if kept != nil { store?.forget(name: name) }
            throw error
        }
        if kept == nil, let store { store.keep(view.masterFD, name: name, watchHangUp: false) }
        nextClientID += 1
        registry.clients[view.clientID] = view
        if let a = registry.accessory(named: accessory) {
            view.accessoryChanged(ready: a.state == .ready, state: a.reportedState.rawValue)
        }
        return view
    }

    /// The runtime directory and its `tty/` folder: this user's, writable by nobody else.
    /// Searchable by all (0755) when made here, so that other users' programs can reach a view
    /// the pty's own mode lets them open.
    private func ensureRelativeFolder() throws(ViewError) {
        let rule = DirectorySafety.privateTo(uid: UserDatabase.effectiveUserID)
        let folder = runtimeDirectory + "/" + ViewSettings.relativeFolder
        do {
            try rule.ensure(runtimeDirectory, mode: 0o755)
            try rule.ensure(folder, mode: 0o755)
        } catch {
            throw .unsafeDirectory(path: folder, error)
        }
    }

    /// Closes every view (the daemon is stopping). Device loop.
    func closeAll() {
        registry.loop.assertInLoop()
        for view in views { view.close(reason: "the daemon is stopping") }
        views = []
        byAccessory = [:]
        openWatch.close()
        poll.stop()
    }

    /// A frame of `a` that no request claimed, to the views whose owner `a`'s `access:` allows
    /// (``PtyView/mayReceive(from:)``). Device loop.
    func deliver(_ frame: [UInt8], from a: Accessory) {
        guard let list = byAccessory[a.name] else { return }
        for view in list where view.mayReceive(from: a) { view.unclaimed(frame, framing: a.settings.framing) }
    }

    /// `a` changed state. Device loop.
    func accessoryChanged(_ a: Accessory) {
        registry.loop.assertInLoop()
        guard let list = byAccessory[a.name] else { return }
        for view in list { view.accessoryChanged(ready: a.state == .ready, state: a.reportedState.rawValue) }
    }

    /// The views of the accessory `name`, and those that could not be made. Device loop.
    func status(of name: String) -> [DeviceStatusResult.View] {
        registry.loop.assertInLoop()
        var list = (byAccessory[name] ?? []).map { DeviceStatusResult.View.view($0.status()) }
        for f in failures where f.accessory == name {
            list.append(.failed(path: f.path, error: f.error.description))
        }
        return list
    }

    // MARK: - Programs opening views

    private func armPoll() {
        guard !views.isEmpty else { return }
        poll.start { [unowned self] in
            guard !views.isEmpty else { return false }
            for view in views where !view.isOpen { _ = view.checkOpened() }
            return true
        }
    }
}

/// A view's owner and group as ids: named ones looked up, absent ones the daemon's own.
/// Threading: pure apart from the user database. Any thread.
enum ViewIdentity {
    static func resolve(_ settings: ViewSettings) throws(ViewError) -> (uid: UInt32, gid: UInt32) {
        var uid = UserDatabase.effectiveUserID
        var gid = UserDatabase.effectiveGroupID
        switch settings.owner {
        case .id(let id)?: uid = id
        case .name(let name)?:
            guard let found = (try? UserDatabase.userID(named: name)) ?? nil else { throw .unknownUser(name) }
            uid = found
        case nil: break
        }
        switch settings.group {
        case .id(let id)?: gid = id
        case .name(let name)?:
            guard let found = (try? UserDatabase.groupID(named: name)) ?? nil else { throw .unknownGroup(name) }
            gid = found
        case nil: break
        }
        // Giving the pty away needs CAP_CHOWN; without it only a group the daemon is in will do.
        // Said here, before anything is made (and by --check-config, run in the same sandbox),
        // rather than as an EPERM when the view is published.
        let mayChangeOwners = UserDatabase.mayChangeOwners  // reads /proc/self/status: once
        if uid != UserDatabase.effectiveUserID && !mayChangeOwners {
            throw .ownerNeedsCapability(owner: settings.owner.map { "\($0)" } ?? "\(uid)", uid: uid)
        }
        if gid != UserDatabase.effectiveGroupID && !UserDatabase.isMember(ofGroup: gid) && !mayChangeOwners {
            throw .groupNeedsMembership(group: settings.group.map { "\($0)" } ?? "\(gid)", gid: gid)
        }
        return (uid, gid)
    }
}
