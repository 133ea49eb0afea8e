import IOLoop
import SystemCalls
import Transports

/// How an accessory reaches its device: opening a tty path, or connecting an RFCOMM channel.
/// The daemon's is ``SystemDeviceOpener``; a test gives its own, whose channels are fakes, and so
/// drives an accessory's whole request path on virtual time.
///
/// Device loop only.
protocol DeviceOpener {
    /// Opens the tty at `path` with `settings`, exclusively, for accessory `accessory`: takes
    /// over the descriptor kept for it across a restart when that is still the device at `path`,
    /// else opens the path. The port is returned for its ioctls (modem lines, break); nil where
    /// the opener has none (a test's fake device).
    func openSerial(
        path: String,
        settings: SerialSettings,
        maxOutboundBytes: Int,
        for accessory: String
    ) throws(TransportError) -> SerialOpening

    /// `accessory`'s device was closed for good (removed, disabled, gone from the configuration,
    /// unplugged): nothing of it is kept for the next start.
    func closedForGood(_ accessory: String)

    /// Starts connecting to `endpoint`; `completion` is called once, on the loop, unless the
    /// returned connection is cancelled first.
    func connectRFCOMM(
        to endpoint: RFCOMMEndpoint,
        maxOutboundBytes: Int,
        completion: @escaping (Result<any DeviceChannel, TransportError>) -> Void
    ) -> any PendingConnection
}

/// What ``DeviceOpener/openSerial(path:settings:maxOutboundBytes:for:)`` gives. A value.
struct SerialOpening {
    let channel: any DeviceChannel
    let port: SerialPort?
    /// The descriptor kept across the restart was taken over: the device was never closed.
    var adopted = false
    /// Why the descriptor kept for it was closed instead (the path was opened afresh), if one was.
    var keptRefused: String?
}

/// Opens real devices on the device loop: ttys through ``SerialPort``, RFCOMM sockets through
/// ``RFCOMMConnector`` and `driver` (Bluetooth, or a test's stand-in socket); and keeps each
/// open tty's descriptor in `store` (systemd's, when there is one) so that a restart closes
/// nothing. A value; device loop only.
struct SystemDeviceOpener: DeviceOpener {
    let loop: IOLoop
    let rfcommDriver: RFCOMMSocketDriver
    /// Where open devices (and the views' ptys: ``ViewSet``) are kept across a restart.
    let store: (any DeviceDescriptorStore)?

    func openSerial(
        path: String,
        settings: SerialSettings,
        maxOutboundBytes: Int,
        for accessory: String
    ) throws(TransportError) -> SerialOpening {
        let name = DeviceDescriptorStoreName.forAccessory(accessory)
        var refused: String?
        if let store, let kept = store.takeKept(name: name) {
            do {
                let port = try SerialPort.adopt(
                    OwnedFD(adopting: kept),
                    path: path,
                    settings: settings,
                    on: loop,
                    exclusive: true,
                    maxOutboundBytes: maxOutboundBytes
                )
                return SerialOpening(channel: port.channel, port: port, adopted: true)
            } catch {
                // Closed by adopt; systemd's copy goes too, or it would hold the old device open.
                store.forget(name: name)
                refused = error.description
            }
        }
        let port = try SerialPort.open(
            path: path,
            settings: settings,
            on: loop,
            exclusive: true,
            maxOutboundBytes: maxOutboundBytes
        )
        // Nothing is kept under this name now: what was handed back was taken above (and dropped
        // if refused), and a device closed for good was dropped when it closed.
        if let store, let fd = port.channel.fileDescriptor { store.keep(fd, name: name, watchHangUp: true) }
        return SerialOpening(channel: port.channel, port: port, keptRefused: refused)
    }

    func closedForGood(_ accessory: String) {
        store?.forget(name: DeviceDescriptorStoreName.forAccessory(accessory))
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
