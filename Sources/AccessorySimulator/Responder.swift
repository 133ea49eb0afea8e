import IOLoop
import Transports

/// Bytes a personality wants written to the client. Any thread (a value).
struct Output {
    /// Any thread (a value).
    enum Kind {
        /// The answer to one request (or one `nmea` fix): counted, and subject to faults.
        case reply
        /// Unsolicited or incidental output (command echo, `RING`): written at once, never faulted.
        case unsolicited
    }

    var bytes: [UInt8]
    var kind: Kind
    /// Extra processing time of this reply, on top of the configured response delay.
    var delay: Duration = .zero

    static func reply(_ bytes: [UInt8], delay: Duration = .zero) -> Output {
        Output(bytes: bytes, kind: .reply, delay: delay)
    }

    static func unsolicited(_ bytes: [UInt8]) -> Output { Output(bytes: bytes, kind: .unsolicited) }
}

/// A personality's behaviour: it turns inbound bytes into outputs, and may speak on its own at a
/// fixed period. Pure logic, no I/O: ``SimulatedAccessory`` does the reading, writing, timing and
/// fault injection.
///
/// Owned by one accessory; loop thread only.
protocol Responder {
    /// Bytes that give replies their shape (line ends, frame delimiters); the garbage fault keeps
    /// them in place.
    var structuralBytes: Set<UInt8> { get }

    /// The period at which ``tick()`` is called, or nil for never.
    var tickInterval: Duration? { get }

    /// Takes bytes from the client and returns what to write, in order.
    mutating func receive(_ bytes: ArraySlice<UInt8>) -> [Output]

    /// Periodic output.
    mutating func tick() -> [Output]

    /// When the responder next has output due at a time of its own (``due(at:)``); nil for
    /// none. Read after each call that may change it.
    var nextDue: LoopInstant? { get }

    /// The accessory appeared at `now` (the start of a replay's clock).
    mutating func started(at now: LoopInstant)

    /// ``receive(_:)`` for a responder that needs to know when the bytes came.
    mutating func receive(_ bytes: ArraySlice<UInt8>, at now: LoopInstant) -> [Output]

    /// The output due by `now`, in order.
    mutating func due(at now: LoopInstant) -> [Output]
    /// The host set the modem lines (`DTR`, `RTS`; true is asserted) at `now`, as reported over
    /// the simulator's line socket (a pty carries no modem lines: ``LineReport``).
    mutating func linesChanged(_ lines: ModemLineReport, at now: LoopInstant) -> [Output]
    /// The host started (`on`) or ended a break at `now`, reported over the same socket
    /// (``LineBreakReport``).
    mutating func breakChanged(_ report: LineBreakReport, at now: LoopInstant) -> [Output]
}

extension Responder {
    var tickInterval: Duration? { nil }
    mutating func tick() -> [Output] { [] }
    var nextDue: LoopInstant? { nil }
    mutating func started(at now: LoopInstant) {}
    mutating func receive(_ bytes: ArraySlice<UInt8>, at now: LoopInstant) -> [Output] { receive(bytes) }
    mutating func due(at now: LoopInstant) -> [Output] { [] }
    mutating func linesChanged(_ lines: ModemLineReport, at now: LoopInstant) -> [Output] { [] }
    mutating func breakChanged(_ report: LineBreakReport, at now: LoopInstant) -> [Output] { [] }
}

/// Makes the responder of a configuration (a fresh one for each appearance of the accessory).
/// Any thread.
func makeResponder(for configuration: SimulatorConfiguration) -> any Responder {
    switch configuration.personality {
    case .echo:
        return EchoResponder(
            terminator: configuration.terminator,
            maxLength: configuration.maxInboundLength,
            replyRepeat: configuration.replyRepeat
        )
    case .atModem:
        return ATModemResponder(
            unsolicitedInterval: configuration.unsolicitedInterval,
            maxLength: configuration.maxInboundLength
        )
    case .nmea:
        return NMEAResponder(
            interval: configuration.unsolicitedInterval ?? .seconds(1),
            maxLength: configuration.maxInboundLength
        )
    case .framed(let framing):
        return FramedResponder(
            framing: framing,
            maxLength: configuration.maxInboundLength,
            replyRepeat: configuration.replyRepeat
        )
    case .script(let script):
        return ScriptResponder(
            script: script,
            terminator: script.terminator ?? configuration.terminator,
            maxLength: configuration.maxInboundLength
        )
    case .replay(let plan):
        return ReplayResponder(plan: plan, maxLength: configuration.maxInboundLength)
    case .esp32ROM(let boot):
        return ESP32ROMResponder(boot: boot, maxLength: configuration.maxInboundLength)
    }
}
