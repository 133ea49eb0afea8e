import Glibc
import IOLoop
import SystemCalls
import Testing
import Transports

/// The pty stand-in for modem lines: a port on a pty (which has none) reports DTR and RTS to
/// its stand-in's socket, reads them back from it, and fails with the socket's name when nobody
/// listens. Test thread only.
@Suite struct ModemLineStandInTests {
    /// A datagram socket bound in a fresh folder, as the simulator makes it.
    final class Listener {
        let folder: String
        let path: String
        let socket: OwnedFD

        init() throws {
            folder = try FileIO.makeTemporaryDirectory(prefix: "/tmp/standin-")
            path = folder + "/dev:lines"
            socket = try Socket.unixDatagram()
            try Socket.bind(socket.rawValue, .path(path))
        }

        /// The reports received so far.
        func reports() -> [String] {
            var out: [String] = []
            while case .processed(let d)? = try? Socket.receiveWithCredentials(socket.rawValue, max: 64) {
                out.append(String(decoding: d.bytes, as: UTF8.self))
            }
            return out
        }

        deinit {
            unlink(path)
            rmdir(folder)
        }
    }

    @Test func aPtyPortReportsItsLinesToTheStandIn() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let pty = try PseudoTerminal.open()
        let port = try SerialPort.open(path: pty.slavePath, settings: SerialSettings(), on: loop)
        defer { port.close() }
        #expect(try port.setModemLines(.dtr, asserted: false) == .unsupported, "a pty has no modem lines")
        #expect(try port.modemLines() == .unsupported)
        let listener = try Listener()
        let standIn = try SocketLineStandIn(path: listener.path)
        port.modemLineStandIn = standIn
        #expect(try port.setModemLines(.dtr, asserted: false) == .done)
        #expect(try port.setModemLines(.rts, asserted: false) == .done)
        #expect(try port.setModemLines([.dtr, .rts], asserted: true) == .done)
        #expect(listener.reports() == ["lines dtr=0 rts=1", "lines dtr=0 rts=0", "lines dtr=1 rts=1"])
        #expect(try port.modemLines() == .lines([.dtr, .rts]))
        _ = pty
    }

    @Test func aReportNobodyTakesFailsNamingTheSocket() throws {
        let standIn = try SocketLineStandIn(path: "/tmp/no-such-folder-\(getpid())/dev:lines")
        #expect(throws: TransportError.self) { try standIn.set(.dtr, asserted: false) }
        do {
            try standIn.set(.rts, asserted: false)
        } catch {
            #expect(error.description.contains("no-such-folder"))
        }
        #expect(standIn.lines == [], "the state changes as a UART's pins would")
    }

    @Test func reportsRoundTripAndAnythingElseIsRefused() {
        for (dtr, rts) in [(false, false), (false, true), (true, false), (true, true)] {
            let report = ModemLineReport(dtr: dtr, rts: rts)
            #expect(ModemLineReport(decoding: report.encoded) == report)
        }
        for bad in ["lines dtr=2 rts=0", "lines rts=0 dtr=1", "line  dtr=1 rts=0", "lines dtr=1 rts=0\n", ""] {
            #expect(ModemLineReport(decoding: Array(bad.utf8)) == nil, "\(bad)")
        }
    }
}
