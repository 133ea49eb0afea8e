import Transports

/// What a network listener's connection (``NetworkConnection``) does to the line while it holds
/// the accessory's raw session: line settings and the break condition. Each call acts only for
/// the client whose `attach` session is running, so a connection that lost its session (the
/// accessory went away, an administrator ended it) cannot touch the line. Device loop only.
extension Accessory {
    /// The line settings from the configuration: what a session's changes are undone to.
    var configuredSerialSettings: SerialSettings { TransportMapping.serialSettings(settings.serial) }

    /// Whether `clientID` holds the accessory's raw session now.
    func holdsRawSession(_ clientID: UInt64) -> Bool {
        rawSession?.origin.clientID == clientID
    }

    /// Applies `line` to the open port for `clientID`'s session; nil when done, else why not.
    func applySessionLine(_ line: SerialSettings, for clientID: UInt64) -> String? {
        loop.assertInLoop()
        guard holdsRawSession(clientID) else { return "the session is not running" }
        guard let port else { return "\(name) has no serial line" }
        do {
            try port.configure(line)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Starts or ends the break condition for `clientID`'s session; nil when done, else why not.
    func setSessionBreak(_ on: Bool, for clientID: UInt64) -> String? {
        loop.assertInLoop()
        guard holdsRawSession(clientID) else { return "the session is not running" }
        guard let port else { return "\(name) has no serial line" }
        do {
            return try port.setBreakCondition(on) == .done ? nil : "the line cannot send a break"
        } catch {
            return "\(error)"
        }
    }

    /// Puts the configured line settings back after a session changed them (the session is
    /// ending: called while it still holds the accessory, before the next client is served).
    func restoreConfiguredLine(for clientID: UInt64) -> String? {
        applySessionLine(configuredSerialSettings, for: clientID)
    }
}
