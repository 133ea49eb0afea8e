/// What the udev monitor reports about a device of a watched subsystem.
///
/// Any thread (a value).
public enum HotplugEvent: Sendable, Equatable {
    /// The device appeared (udev `add`), or was plugged in again.
    case added(DeviceIdentity)
    /// The device went away (udev `remove`); match it to the added one by ``DeviceIdentity/devPath``.
    case removed(DeviceIdentity)
    /// Its properties changed (udev `change`), e.g. after a rule reload.
    case changed(DeviceIdentity)

    /// The device the event is about. Any thread.
    public var device: DeviceIdentity {
        switch self {
        case .added(let d), .removed(let d), .changed(let d): d
        }
    }
}
