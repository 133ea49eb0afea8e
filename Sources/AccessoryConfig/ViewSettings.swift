/// One entry of an accessory's `views:`: a pseudo-terminal the daemon owns and publishes at a
/// stable path, for programs that only know how to open a tty (gpsd, picocom, pyserial scripts).
///
/// ```yaml
/// views:
///   - pty: gps            # relative: <runtime directory>/tty/gps; or an absolute path
///     mode: monitor       # monitor | shared | exclusive
///     owner: gpsd         # optional: the slave's owner (a name or a numeric id)
///     group: dialout      # optional: the slave's group
///     perm: "0660"        # optional: the slave's mode (octal)
///     buffer_bytes: 65536 # optional: what a program that does not read may fall behind by
///     idle_ms: 60000      # optional, exclusive: the raw session ends after this long without a byte
/// ```
///
/// Threading: a value. Any thread.
public struct ViewSettings: Sendable, Equatable {
    /// What the view does with the accessory's traffic.
    ///
    /// Threading: a value. Any thread.
    public enum Mode: String, Sendable, CaseIterable {
        /// The frames no request claimed are written to the view; the program's writes are discarded.
        case monitor
        /// The program's frames are requests in the accessory's queue; their replies come back.
        case shared
        /// The program's first write takes the accessory as a raw session until it closes the view.
        case exclusive
    }

    /// As configured: a path relative to the runtime directory's `tty/` folder, or absolute.
    public var pty: String
    public var mode: Mode
    public var owner: Principal?
    public var group: Principal?
    /// Permission bits of the slave device; `nil`: 0660 with a group, else 0600.
    public var perm: UInt32?
    /// The most the daemon keeps for a program that does not read (oldest dropped first).
    public var bufferBytes: Int
    /// `exclusive`: the raw session ends when no byte went either way for this long; `nil`:
    /// only `limits.attach_idle_ms` (every raw session's bound) ends it.
    public var idleMs: Int?

    public static let defaultBufferBytes = 64 << 10

    public init(
        pty: String,
        mode: Mode,
        owner: Principal? = nil,
        group: Principal? = nil,
        perm: UInt32? = nil,
        bufferBytes: Int = ViewSettings.defaultBufferBytes,
        idleMs: Int? = nil
    ) {
        self.pty = pty
        self.mode = mode
        self.owner = owner
        self.group = group
        self.perm = perm
        self.bufferBytes = bufferBytes
        self.idleMs = idleMs
    }

    /// The permission bits the slave gets.
    public var effectivePerm: UInt32 { perm ?? (group == nil ? 0o600 : 0o660) }

    /// The path of the view's link: `pty` itself when absolute, else `<runtimeDirectory>/tty/<pty>`.
    public func linkPath(runtimeDirectory: String) -> String {
        if pty.hasPrefix("/") { return pty }
        let base = runtimeDirectory.hasSuffix("/") ? String(runtimeDirectory.dropLast()) : runtimeDirectory
        return base + "/" + Self.relativeFolder + "/" + pty
    }

    /// The runtime directory's folder that relative view paths are in.
    public static let relativeFolder = "tty"
}

extension AccessorySettings {
    /// The settings with `views` left out: what decides whether a reload must replace the
    /// accessory itself (a change of its views alone does not).
    public var withoutViews: AccessorySettings {
        var copy = self
        copy.views = []
        return copy
    }
}
