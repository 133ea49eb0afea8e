/// What happened to a simulated accessory, reported to the `onEvent` callback. Any thread (a value).
public enum SimulatorEvent: Sendable, Equatable {
    /// A pty is open and its slave published (and linked): at start, and after each reappearance.
    case appeared(slavePath: String)
    /// The accessory hung up (closed its pty master); `reappearing` says whether it will return.
    case hungUp(reappearing: Bool)
}

/// A snapshot of a simulated accessory's state. Any thread (a value).
public struct SimulatorStatus: Sendable, Equatable {
    /// The current slave path; nil while hung up or after stop.
    public var slavePath: String?
    /// How many times a pty was opened (1 after start, +1 per reappearance).
    public var appearances: Int
    /// Replies counted since the last appearance (the count the fault switches use).
    public var replies: Int
    /// Requests and fixes over the accessory's whole life.
    public var totalReplies: Int
    /// True once ``SimulatedAccessory/stop()`` has run.
    public var isStopped: Bool
}
