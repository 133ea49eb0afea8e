import Transports

/// The byte stream an accessory talks to its device through: what ``Accessory`` needs of
/// ``StreamChannel``, so that a test can stand in for the device without a pty (a fake channel
/// on an `EmbeddedLoop`). The daemon's channels are always `StreamChannel`s.
///
/// The contract is `StreamChannel`'s: ``write(_:)`` queues and refuses bytes past the channel's
/// limit; ``onDrained`` says when the queue emptied again; ``onGone`` is called once when the
/// device goes away; after ``close()`` no callback is called again.
///
/// Loop thread only.
protocol DeviceChannel: AnyObject {
    /// Bytes lent for the call (``StreamChannel/onBytes``).
    var onBytes: ((UnsafeRawBufferPointer) -> Void)? { get set }
    var onGone: ((GoneReason) -> Void)? { get set }
    var onDrained: (() -> Void)? { get set }
    /// Bytes accepted by ``write(_:)`` and not yet written to the device.
    var queuedOutboundBytes: Int { get }
    func write(_ bytes: [UInt8]) throws(TransportError)
    func close()
}

extension StreamChannel: DeviceChannel {}

/// An open in flight (an RFCOMM connect) that can be given up. Loop thread only.
protocol PendingConnection: AnyObject {
    func cancel()
}

extension RFCOMMConnector: PendingConnection {}
