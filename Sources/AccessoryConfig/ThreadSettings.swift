/// `threads:` — which thread serves the clients.
///
/// Threading: a value. Any thread.
public struct ThreadSettings: Sendable, Equatable {
    /// Where the control server (the client connections, JSON parsing and encoding) runs.
    public enum ControlPlacement: String, Sendable, CaseIterable {
        /// A loop thread of its own (the default): no client, however many or however large its
        /// requests, can delay a byte on a serial line.
        case own
        /// The device loop's thread: one thread in all, no cross-thread hop per request; about
        /// half the latency and CPU per request, but parsing a client's request now waits its
        /// turn with the accessories' I/O (a 64 KiB request line takes the loop ~0.1 ms).
        case shared
    }

    public var control: ControlPlacement

    public init(control: ControlPlacement = .own) {
        self.control = control
    }
}
