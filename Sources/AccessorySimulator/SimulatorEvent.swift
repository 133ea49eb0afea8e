/// What happened to a simulated accessory, reported to the `onEvent` callback. Any thread (a value).
package enum SimulatorEvent: Sendable, Equatable {
    /// A pty is open and its slave published (and linked): at start, and after each reappearance.
    case appeared(slavePath: String)
    /// The accessory hung up (closed its pty master); `reappearing` says whether it will return.
    case hungUp(reappearing: Bool)
}

/// A snapshot of a simulated accessory's state. Any thread (a value).
package struct SimulatorStatus: Sendable, Equatable {
    /// The current slave path; nil while hung up or after stop.
    package var slavePath: String?
    /// How many times a pty was opened (1 after start, +1 per reappearance).
    package var appearances: Int
    /// Replies counted since the last appearance (the count the fault switches use).
    package var replies: Int
    /// Requests and fixes over the accessory's whole life.
    package var totalReplies: Int
    /// True once ``SimulatedAccessory/stop()`` has run.
    package var isStopped: Bool
}
