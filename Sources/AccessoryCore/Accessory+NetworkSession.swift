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

    /// Puts the configured line settings back after `clientID`'s session changed them, and ends
    /// a break it left on. Called as the session ends: while it still holds the accessory, or
    /// just after the accessory ended it (idle, an administrator) and before its `attach`
    /// finishes, so before the next client is served; never while another client's session runs.
    /// Nil when done, else why not.
    func restoreAfterSession(of clientID: UInt64, breakWasOn: Bool) -> String? {
        loop.assertInLoop()
        guard rawSession == nil || holdsRawSession(clientID) else { return "another client holds \(name)" }
        guard let port else { return "\(name) has no serial line" }
        do {
            if breakWasOn { try port.setBreakCondition(false) }
            try port.configure(configuredSerialSettings)
            return nil
        } catch {
            return "\(error)"
        }
    }
}
