import AccessoryConfig
import Transports

/// The pty stand-in for a simulated accessory's modem lines. A simulator holds the pty's master
/// and the daemon its slave, and a pty carries no DTR or RTS; so for a `simulate:` accessory the
/// port reports the lines it would have set to the simulator's line socket instead
/// (``SocketLineStandIn``), and `control`, `device.status` and anything else that sets or reads
/// the lines work as on a UART. docs/testing.md, "Modem lines of simulated accessories".
///
/// Device loop only.
extension Accessory {
    /// Where the simulator publishing the link `link` listens for line reports (`:` is not
    /// allowed in accessory names, so it never collides with another accessory's link).
    package static func simulatorLineSocket(forLink link: String) -> String { link + ":lines" }

    /// Gives `port` (opened at `link`) the stand-in when this accessory is simulated, and reports
    /// the lines a freshly opened port shows (DTR and RTS up). A simulator not listening yet is
    /// no error here: the next line change reports the whole state again.
    func standInForModemLines(of port: SerialPort, link: String) {
        guard case .simulate = settings.source else { return }
        guard let standIn = try? SocketLineStandIn(path: Self.simulatorLineSocket(forLink: link)) else { return }
        port.modemLineStandIn = standIn
        try? standIn.report()
    }
}
