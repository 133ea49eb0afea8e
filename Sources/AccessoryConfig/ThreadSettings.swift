/// `threads:` — which thread serves the clients.
///
/// Threading: a value. Any thread.
public struct ThreadSettings: Sendable, Equatable {
    /// Where the control server (the client connections, JSON parsing and encoding) runs.
    public enum ControlPlacement: String, Sendable, CaseIterable {
        /// A loop thread of its own: no client, however many or however large its requests, takes
        /// time from the thread that serves the accessories. Costs a cross-thread hop (an eventfd
        /// write and a thread wake-up) per request: about twice the latency and CPU per request.
        case own
        /// The device loop's thread (the default): one thread in all, no cross-thread hop per
        /// request. Parsing a client's request takes its turn with the accessories' I/O; the
        /// control server reads at most `inputBytesPerTurn` (64 KiB) of requests per turn of the
        /// loop, so a turn's parsing is bounded (compare-bench's interference run: about 22,000
        /// 60 KB lines a second read, parsed and refused on one thread, ~45 µs each).
        case shared
    }

    public var control: ControlPlacement

    public init(control: ControlPlacement = .shared) {
        self.control = control
    }
}
