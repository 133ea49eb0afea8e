import AccessoryConfig
import SystemCalls

/// Where accessories' open device descriptors are kept while the daemon restarts, so that no
/// device is closed by a restart: closing a tty drops DTR (`HUPCL`), and many boards reset when
/// it drops. The daemon's is systemd's file descriptor store (`FDSTORE=1` with the descriptor;
/// handed back at the next start); without systemd there is none. Names are
/// ``DeviceDescriptorStoreName``.
///
/// Device loop only.
public protocol DeviceDescriptorStore: AnyObject {
    /// The descriptor handed back at start under `name`, if any; each is given out once, and the
    /// caller owns it (it stays in the store until ``forget(name:)``).
    func takeKept(name: String) -> CInt?
    /// Keeps a copy of `fd` under `name` (the store holds its own). With `watchHangUp`, the
    /// store may drop it when it hangs up (a tty whose device went away); a pty view's master,
    /// hung up whenever nobody has its slave open, is kept regardless.
    func keep(_ fd: CInt, name: String, watchHangUp: Bool)
    /// Drops what is kept under `name` (the store closes its copies): the device was closed for
    /// good, or the descriptor handed back was not adopted.
    func forget(name: String)
}

/// The names descriptors are kept under. Pure; any thread.
public enum DeviceDescriptorStoreName {
    static let devicePrefix = "device."

    /// An accessory's device: `device.` and the accessory's name (which has no `:`, the separator
    /// of systemd's `LISTEN_FDNAMES`).
    public static func forAccessory(_ accessory: String) -> String { devicePrefix + accessory }

    static let viewPrefix = "view."

    /// A pty view's master: `view.`, the accessory's name, and a digest of the view's whole
    /// settings (its path, mode, owner, group, perm…), so that a view whose settings changed
    /// finds nothing kept under its name and gets a new pty, while its old one is closed.
    public static func forView(accessory: String, settings: ViewSettings) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a, 64 bits: stable across runs, unlike Hasher
        for byte in identity(of: settings).utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        let digits = String(hash, radix: 16)
        return viewPrefix + accessory + "." + String(repeating: "0", count: 16 - digits.count) + digits
    }

    /// The text the digest is of: every setting by name, written here rather than by reflection
    /// (`"\(settings)"`), whose text is no promise: a new release that added a field or printed
    /// one differently would give every view a new name, and a restart into it a new pty. A
    /// field added to ``ViewSettings`` is added here (a view whose new setting differs is a
    /// changed view).
    static func identity(of v: ViewSettings) -> String {
        func principal(_ p: Principal?) -> String {
            switch p {
            case nil: "-"
            case .name(let name)?: "name:" + name
            case .id(let id)?: "id:" + String(id)
            }
        }
        return [
            "pty=" + v.pty, "mode=" + v.mode.rawValue, "owner=" + principal(v.owner), "group=" + principal(v.group),
            "perm=" + (v.perm.map { String($0, radix: 8) } ?? "-"), "buffer_bytes=" + String(v.bufferBytes),
            "idle_ms=" + (v.idleMs.map { String($0) } ?? "-"),
        ].joined(separator: " ")
    }

    /// Whether a name handed back at start is one of ours (a device's or a view's).
    public static func isDevice(_ name: String) -> Bool { name.hasPrefix(devicePrefix) || name.hasPrefix(viewPrefix) }
}
