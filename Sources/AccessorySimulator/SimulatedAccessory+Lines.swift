import Glibc
import IOLoop
import SystemCalls
import Transports

/// The stand-in for modem lines: a pty carries no DTR or RTS (the modem-line ioctls fail on it
/// with `ENOTTY`), so a host that wants its simulated accessory to see them sends each change as
/// a ``ModemLineReport`` datagram to the socket at ``SimulatorConfiguration/linesSocketPath``
/// (the daemon does, for `simulate:` accessories: `SocketLineStandIn`), and each start and end
/// of a break as a ``LineBreakReport``. The personality gets them through
/// ``Responder/linesChanged(_:at:)`` and ``Responder/breakChanged(_:at:)``, and may have output due later
/// (``Responder/nextDue``), e.g. after a reset that takes time.
///
/// The socket is made mode 0600, and a report from another user is dropped (its credentials
/// come with it, `SO_PASSCRED`), as is anything that is not a report.
extension SimulatedAccessory {
    /// Binds the line socket (replacing a stale socket left at the path, never another kind of
    /// file). Any thread, before the loop serves the accessory.
    static func bindLinesSocket(at path: String) throws(SimulatorError) -> OwnedFD {
        do throws(SyscallError) {
            if let existing = try FileIO.status(ofPath: path), existing.kind == .socket { try FileIO.unlink(path) }
            let socket = try Socket.unixDatagram()
            try Socket.setOption(socket.rawValue, level: SOL_SOCKET, name: SO_PASSCRED, value: 1)
            try Socket.bind(socket.rawValue, .path(path))
            try FileIO.changeMode(path, to: 0o600)
            return socket
        } catch {
            throw .link(path: path, error)
        }
    }

    /// Serves the bound line socket on the loop. Loop thread only.
    func serveLines(_ socket: consuming OwnedFD) {
        let fd = socket.rawValue
        linesSource = try? loop.addSource(owning: socket, interest: .readable) { [self] _ in readLineReports(fd) }
    }

    private func readLineReports(_ fd: CInt) {
        let me = getuid()
        // A bounded batch per wake-up; the rest waits for the next (level-triggered) one.
        for _ in 0..<64 {
            guard case .processed(let datagram)? = try? Socket.receiveWithCredentials(fd, max: 64) else { return }
            guard datagram.senderUID == me, source != nil else { continue }
            if let report = ModemLineReport(decoding: datagram.bytes) {
                deliver(responder.linesChanged(report, at: loop.now))
            } else if let report = LineBreakReport(decoding: datagram.bytes) {
                deliver(responder.breakChanged(report, at: loop.now))
            } else {
                continue
            }
            armDueTimer()
        }
    }

    /// Closes the line socket and removes its name. Loop thread only.
    func stopServingLines() {
        guard let source = linesSource.take() else { return }
        source.cancel()
        if let path = configuration.linesSocketPath { try? FileIO.unlink(path) }
    }
}
