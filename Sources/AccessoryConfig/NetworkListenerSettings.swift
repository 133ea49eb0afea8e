/// One entry of an accessory's `network:`: a TCP listener on a loopback address through which
/// programs that speak RFC 2217 (`rfc2217://`) or plain TCP (`socket://`) reach the accessory.
///
///     network:
///       - {listen: "127.0.0.1:4001", protocol: rfc2217, settings: follow}
///
/// Threading: a value. Any thread.
public struct NetworkListenerSettings: Sendable, Hashable {
    /// What a connection speaks.
    public enum ProtocolKind: String, Sendable, Hashable, CaseIterable {
        /// Telnet with COM-PORT-OPTION (RFC 2217): data, line settings, modem lines, BREAK.
        case rfc2217
        /// The device's bytes both ways, nothing else.
        case raw
    }

    /// What a client's line-setting commands do.
    public enum SettingsPolicy: String, Sendable, Hashable, CaseIterable {
        /// Applied to the line for the connection's session, restored when it ends.
        case follow
        /// Not applied: acknowledged with the accessory's configured values.
        case locked
    }

    public var listen: ListenAddress
    public var kind: ProtocolKind
    public var settings: SettingsPolicy

    public init(listen: ListenAddress, kind: ProtocolKind = .rfc2217, settings: SettingsPolicy = .follow) {
        self.listen = listen
        self.kind = kind
        self.settings = settings
    }
}

extension AccessorySettings {
    /// The settings with `views` and `network` left out: what decides whether a reload must
    /// replace the accessory itself (a change of its views or listeners alone does not).
    public var withoutAttachments: AccessorySettings {
        var copy = withoutViews
        copy.network = []
        return copy
    }
}
