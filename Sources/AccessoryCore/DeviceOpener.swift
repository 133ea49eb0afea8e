import IOLoop
import Transports

/// How an accessory reaches its device: opening a tty path, or connecting an RFCOMM channel.
/// The daemon's is ``SystemDeviceOpener``; a test gives its own, whose channels are fakes, and so
/// drives an accessory's whole request path on virtual time.
///
/// Device loop only.
protocol DeviceOpener {
    /// Opens the tty at `path` with `settings`, exclusively. The port is returned for its ioctls
    /// (modem lines, break); nil where the opener has none (a test's fake device).
    func openSerial(
        path: String,
        settings: SerialSettings,
        maxOutboundBytes: Int
    ) throws(TransportError) -> (channel: any DeviceChannel, port: SerialPort?)

    /// Starts connecting to `endpoint`; `completion` is called once, on the loop, unless the
    /// returned connection is cancelled first.
    func connectRFCOMM(
        to endpoint: RFCOMMEndpoint,
        maxOutboundBytes: Int,
        completion: @escaping (Result<any DeviceChannel, TransportError>) -> Void
    ) -> any PendingConnection
}

/// Opens real devices on the device loop: ttys through ``SerialPort``, RFCOMM sockets through
/// ``RFCOMMConnector`` and `driver` (Bluetooth, or a test's stand-in socket). A value; device
/// loop only.
struct SystemDeviceOpener: DeviceOpener {
    let loop: IOLoop
    let rfcommDriver: RFCOMMSocketDriver

    func openSerial(
        path: String,
        settings: SerialSettings,
        maxOutboundBytes: Int
    ) throws(TransportError) -> (channel: any DeviceChannel, port: SerialPort?) {
        let port = try SerialPort.open(
            path: path,
            settings: settings,
            on: loop,
            exclusive: true,
            maxOutboundBytes: maxOutboundBytes
        )
        return (port.channel, port)
    }

    func connectRFCOMM(
        to endpoint: RFCOMMEndpoint,
        maxOutboundBytes: Int,
        completion: @escaping (Result<any DeviceChannel, TransportError>) -> Void
    ) -> any PendingConnection {
        RFCOMMConnector.connect(to: endpoint, on: loop, driver: rfcommDriver, maxOutboundBytes: maxOutboundBytes) {
            result in completion(result.map { $0 })
        }
    }
}
