import AccessoryConfig
import Hotplug

extension AccessoryRegistry {
    /// Whether an accessory is found by its udev properties (`match:`): only those need the
    /// devices present at start-up enumerated. Device loop.
    public var hasUdevMatchedAccessories: Bool {
        loop.preconditionInLoop()
        return accessories.contains { $0.isMatchedByUdev }
    }

    /// A udev event: devices that match an accessory's identity (or its configured path, or carry
    /// its name in `ACCESSORYD_NAME`) open it on `add` and close it on `remove`. An accessory that
    /// several present devices match is a conflict: it is not opened on any of them (which one
    /// would be a guess) and says so in its state until only one is left. Device loop.
    public func hotplug(_ event: HotplugEvent) {
        loop.preconditionInLoop()
        let device = event.device
        guard device.isInitialized, let key = device.devPath ?? device.devName else { return }
        for a in accessories {
            switch event {
            case .added(let d), .changed(let d):
                if a.isMatchedByUdev {
                    if matches(a, d) {
                        udevMatches[a.name, default: [:]][key] = d
                    } else if udevMatches[a.name]?.removeValue(forKey: key) != nil {
                        a.deviceDisappeared("udev: \(d.devName ?? key) no longer matches")
                    }
                    settleMatches(of: a)
                } else if matches(a, d), case .added = event {
                    a.deviceAppeared()
                }
            case .removed(let d):
                if a.isMatchedByUdev {
                    guard let gone = udevMatches[a.name]?.removeValue(forKey: key) else { continue }
                    if a.devicePath == gone.devName {
                        a.deviceDisappeared("udev: \(gone.devName ?? key) removed")
                    }
                    settleMatches(of: a)
                } else if matches(a, d) {
                    a.deviceDisappeared("udev: \(d.devName ?? key) removed")
                }
            }
        }
    }

    /// A link or node appeared in (or disappeared from) a watched folder: it opens the accessories
    /// whose device path is that path, or a symbolic link that leads to it (a link made ahead of
    /// the device, whose node appears in a folder of `hotplug.watch`). Device loop.
    public func pathAppeared(_ path: String) {
        loop.preconditionInLoop()
        for a in accessories where !a.isMatchedByUdev && a.state != .ready && leadsTo(a, path) { a.deviceAppeared() }
    }

    /// See ``pathAppeared(_:)``. Device loop.
    public func pathDisappeared(_ path: String) {
        loop.preconditionInLoop()
        for a in accessories where !a.isMatchedByUdev && leadsTo(a, path) {
            a.deviceDisappeared("\(path) disappeared")
        }
    }

    /// Whether accessory `a` is opened through `path`: its device path, or a link on the way.
    private func leadsTo(_ a: Accessory, _ path: String) -> Bool {
        guard let devicePath = a.devicePath else { return false }
        if devicePath == path { return true }
        return LinkChain.paths(from: devicePath).dropFirst().contains(path)
    }

    /// The folders whose entries name accessories' devices (what a directory watcher should
    /// watch). Device loop.
    public var watchedFolders: Set<String> {
        Set(
            accessories.compactMap { a -> String? in
                guard !a.isMatchedByUdev, let p = a.devicePath, let slash = p.lastIndex(of: "/") else { return nil }
                return slash == p.startIndex ? "/" : String(p[..<slash])
            }
        )
    }

    private func matches(_ a: Accessory, _ d: DeviceIdentity) -> Bool {
        if let tagged = d.accessoryName { return tagged == a.name }
        switch a.settings.source {
        case .match(let m) where m.byID == nil:
            return IdentityMatching.matches(m, accessoryName: a.name, device: d)
        case .rfcomm:
            return false
        default:
            guard let path = a.devicePath else { return false }
            return IdentityMatching.matches(path: path, device: d)
        }
    }

    /// Opens an identity-matched accessory on its one matching device, or reports a conflict.
    private func settleMatches(of a: Accessory) {
        let present = (udevMatches[a.name] ?? [:]).values.compactMap(\.devName).sorted()
        switch present.count {
        case 0:
            udevMatches[a.name] = nil
        case 1:
            a.deviceAppeared(at: present[0])
        default:
            a.reportConflict(
                "conflict: \(present.count) devices match (\(present.joined(separator: ", "))); make the match more specific"
            )
        }
    }
}
