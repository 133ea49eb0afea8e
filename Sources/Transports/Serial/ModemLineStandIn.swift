import Glibc
import SystemCalls

/// What takes the modem-line calls of a ``SerialPort`` whose device has no modem lines (a pty:
/// `TIOCMBIS` and `TIOCMGET` fail with `ENOTTY`). The port turns to it only when the device
/// itself says unsupported, so a real UART never reaches it.
///
/// Loop thread only (the port's).
public protocol ModemLineStandIn: AnyObject {
    /// The output lines as last set.
    var lines: ModemLines { get }
    /// Asserts or de-asserts `lines` (DTR and/or RTS).
    func set(_ lines: ModemLines, asserted: Bool) throws(TransportError)
    /// Starts (`true`) or ends the break condition: a pty accepts `TIOCSBRK` and ignores it.
    func setBreak(_ on: Bool) throws(TransportError)
}

/// The pty stand-in for the modem lines of a simulated accessory: it keeps the DTR and RTS a
/// UART would show and sends each change, as a ``ModemLineReport`` datagram, to the Unix
/// datagram socket the simulator listens on (`accessory-sim --lines-socket`). The simulator
/// checks that a report comes from its own user; the daemon puts the socket in its private
/// runtime directory (`sim/`).
///
/// A new stand-in shows DTR and RTS asserted, as opening a real port raises them (`HUPCL`).
/// A report that cannot be delivered (no simulator listening, its queue full) fails the call
/// that made it, naming the socket; the state still changes, as a UART's pins would.
///
/// Loop thread only.
public final class SocketLineStandIn: ModemLineStandIn {
    /// The simulator's socket.
    public let path: String
    public private(set) var lines: ModemLines = [.dtr, .rts]
    private let socket: OwnedFD

    public init(path: String) throws(TransportError) {
        self.path = path
        do {
            socket = try Socket.unixDatagram()
        } catch {
            throw .system(context: "cannot make a socket to report modem lines to \(path)", error)
        }
    }

    public func set(_ changed: ModemLines, asserted: Bool) throws(TransportError) {
        let outputs = changed.intersection([.dtr, .rts])
        if asserted { lines.formUnion(outputs) } else { lines.subtract(outputs) }
        try report()
    }

    public func setBreak(_ on: Bool) throws(TransportError) {
        try send(LineBreakReport(on: on).encoded, what: "the break condition")
    }

    /// Sends the current state (also what a port does right after opening).
    public func report() throws(TransportError) {
        try send(ModemLineReport(lines).encoded, what: "the modem lines")
    }

    private func send(_ datagram: [UInt8], what: String) throws(TransportError) {
        do throws(SyscallError) {
            if case .wouldBlock = try Socket.sendTo(socket.rawValue, datagram, .path(path)) {
                throw SyscallError(.sendto, .resourceTemporarilyUnavailable)
            }
        } catch {
            throw .system(context: "cannot report \(what) to the simulator at \(path)", error)
        }
    }
}
