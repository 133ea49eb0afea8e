/// `hotplug:` — how the daemon learns that devices come and go.
///
/// The folder of every path-like accessory (`path:`, `match.by_id`, a simulator's link) is
/// watched with inotify, so a link or node appearing opens the accessory at once; the udev
/// monitor adds identity matching (`match:` by vendor, product, serial) where udev runs.
///
/// Threading: a value. Any thread.
public struct HotplugSettings: Sendable, Equatable {
    /// Whether to use the libudev monitor.
    public enum UdevMode: String, Sendable, CaseIterable {
        /// Use it when it can be created; carry on with the watcher alone when not.
        case auto
        /// Use it; failing to create it is an error at start.
        case on
        /// Never use it (containers without udev).
        case off
    }

    public var udev: UdevMode
    /// More folders to watch, absolute (the folders of configured paths are always watched).
    public var watch: [String]

    public init(udev: UdevMode = .auto, watch: [String] = []) {
        self.udev = udev
        self.watch = watch
    }
}
