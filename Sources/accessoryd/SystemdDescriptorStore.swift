import AccessoryCore
import SystemCalls
import Systemd

/// systemd's file descriptor store, as the accessories' ``DeviceDescriptorStore``: each open
/// device goes to the store (`FDSTORE=1`, `FDNAME=device.NAME`) with its descriptor, and comes
/// back at the next start in `LISTEN_FDS`; a device closed for good is removed
/// (`FDSTOREREMOVE=1`). The unit's `FileDescriptorStoreMax=` must leave room for every accessory,
/// or systemd drops what does not fit (and says so in its journal).
///
/// What a restart looks like then: systemd holds a copy of every open tty while no daemon runs,
/// so the tty is never closed and DTR never drops; the new daemon takes each copy back if the
/// configuration still names the accessory and the path still names that device
/// (``SystemDeviceOpener``), and closes the rest (``closeUnclaimed()``), saying why.
///
/// Threading: device loop only (made on the main thread before the loops start).
final class SystemdDescriptorStore: DeviceDescriptorStore, @unchecked Sendable {  // @unchecked: device-loop-confined.
    private let notifier: ServiceNotifier
    private let log: DaemonLog
    /// Handed back at start and not taken yet, by name.
    private var kept: [String: CInt]

    init(notifier: ServiceNotifier, kept: [String: CInt], log: DaemonLog) {
        self.notifier = notifier
        self.kept = kept
        self.log = log
    }

    func takeKept(name: String) -> CInt? {
        kept.removeValue(forKey: name)
    }

    func keep(_ fd: CInt, name: String, watchHangUp: Bool) {
        send(.storeDescriptor(name: name, watchHangUp: watchHangUp), passing: fd)
    }

    func forget(name: String) {
        send(.removeStoredDescriptor(name: name), passing: nil)
    }

    /// Closes what was handed back and no accessory took (gone from the configuration, disabled,
    /// its device gone), and drops it from the store. Called once start-up has opened what it
    /// can. Device loop.
    func closeUnclaimed() {
        for (name, fd) in kept.sorted(by: { $0.key < $1.key }) {
            log(.notice, "closed the descriptor kept for \(name) across the restart: no accessory took it")
            OwnedFD(adopting: fd).close()
            forget(name: name)
        }
        kept = [:]
    }

    private func send(_ message: NotifyMessage, passing fd: CInt?) {
        do {
            try notifier.send(message, passing: fd)
        } catch {
            log(.warning, "descriptor store: \(error)")
        }
    }
}
