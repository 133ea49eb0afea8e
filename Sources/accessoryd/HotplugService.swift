import AccessoryConfig
import AccessoryCore
import Hotplug
import IOLoop

/// The daemon's hot-plug sources: the libudev monitor (unless `hotplug.udev: off`, or it cannot
/// be created under `auto`) and one inotify watcher per folder that holds an accessory's device
/// path or link (plus `hotplug.watch`). Their events go to the registry.
///
/// Device loop only (made on any thread, started and updated on the device loop).
final class HotplugService: @unchecked Sendable {  // @unchecked: state is device-loop-confined after init.
    let loop: IOLoop
    let registry: AccessoryRegistry
    let settings: HotplugSettings
    let log: DaemonLog
    /// Set by a test hook only: the udev monitor fails with this, as where udev is unavailable.
    private let udevFailure: HotplugError?
    private var monitor: UdevMonitor?
    private var watchers: [String: DirectoryWatcher] = [:]

    init(
        loop: IOLoop,
        registry: AccessoryRegistry,
        settings: HotplugSettings,
        log: DaemonLog,
        udevFailure: HotplugError? = nil
    ) {
        self.loop = loop
        self.registry = registry
        self.settings = settings
        self.log = log
        self.udevFailure = udevFailure
    }

    /// Watches the folders, opens the accessories, then starts the udev monitor and, when an
    /// accessory is found by udev properties, feeds the registry the devices present now. Returns an error message when `udev: on` and the monitor failed.
    func start() -> String? {
        loop.preconditionInLoop()
        updateWatches()
        registry.start()
        guard settings.udev != .off else { return nil }
        do {
            if let udevFailure { throw udevFailure }
            let m = try UdevMonitor(loop: loop, subsystems: ["tty"]) { [registry] event in registry.hotplug(event) }
            // Accessories named by path are opened by registry.start() and followed by the folder
            // watchers; only `match:` ones need to know which devices are present already.
            let enumerating = registry.hasUdevMatchedAccessories
            let present = try m.start(enumerating: enumerating)
            monitor = m
            for device in present { registry.hotplug(.added(device)) }
            log(
                .info,
                enumerating
                    ? "udev monitor started (\(present.count) tty devices present)"
                    : "udev monitor started (no match: accessory, present devices not enumerated)"
            )
            return nil
        } catch {
            if settings.udev == .on { return "the udev monitor is required (hotplug.udev: on) but failed: \(error)" }
            log(.notice, "udev monitor unavailable (\(error)); devices are found by watching folders")
            return nil
        }
    }

    /// Watches exactly the folders the accessories need now (after start, and after a reload).
    func updateWatches() {
        loop.preconditionInLoop()
        let wanted = registry.watchedFolders.union(settings.watch)
        for (folder, w) in watchers where !wanted.contains(folder) {
            w.stop()
            watchers[folder] = nil
        }
        for folder in wanted.sorted() where watchers[folder] == nil {
            let w = DirectoryWatcher(directory: folder, loop: loop) { [registry] event in
                switch event {
                case .appeared(let path): registry.pathAppeared(path)
                case .disappeared(let path): registry.pathDisappeared(path)
                }
            }
            do {
                _ = try w.start()
                watchers[folder] = w
            } catch {
                log(.warning, "cannot watch \(folder) for devices coming and going: \(error); relying on retries")
            }
        }
    }

    func stop() {
        monitor?.stop()
        monitor = nil
        for w in watchers.values { w.stop() }
        watchers.removeAll()
    }
}
