import AccessoryTestSupport
import IOLoop
import Transports

@testable import AccessoryCore

/// A device with no descriptor: it records what the accessory writes, and the test says what it
/// answers, when it hangs up, and how much of the written bytes it has not taken yet. Test thread
/// only (the embedded loop's).
final class FakeChannel: DeviceChannel {
    var onBytes: ((UnsafeRawBufferPointer) -> Void)?
    var onGone: ((GoneReason) -> Void)?
    var onDrained: (() -> Void)?
    /// Each `write`, in order.
    private(set) var writes: [[UInt8]] = []
    /// Bytes written but not yet taken by the device: ``drain()`` takes them.
    private(set) var queuedOutboundBytes = 0
    /// Whether the device takes bytes at once (true) or holds them until ``drain()``.
    var drainsAtOnce = true
    private(set) var isClosed = false

    func write(_ bytes: [UInt8]) throws(TransportError) {
        guard !isClosed else { throw .closed }
        writes.append(bytes)
        if !drainsAtOnce { queuedOutboundBytes += bytes.count }
    }

    func close() {
        isClosed = true
        onBytes = nil
        onGone = nil
        onDrained = nil
    }

    /// What was written, as text, one string a write.
    var writtenTexts: [String] { writes.map { String(decoding: $0, as: UTF8.self) } }

    /// The device says `text`.
    func answer(_ text: String) { Array(text.utf8).withUnsafeBytes { onBytes?($0) } }

    /// The device took what was queued.
    func drain() {
        guard queuedOutboundBytes > 0 else { return }
        queuedOutboundBytes = 0
        onDrained?()
    }

    /// The device went away (EOF); the channel reports it once, as a `StreamChannel` does.
    func hangUp() {
        let gone = onGone
        close()
        gone?(.endOfFile)
    }
}

/// Opens ``FakeChannel``s: each open is the next channel; `failWith` makes the next opens fail.
/// Test thread only.
final class FakeDeviceOpener: DeviceOpener {
    private(set) var opened: [FakeChannel] = []
    var failWith: TransportError?

    var current: FakeChannel? { opened.last }

    /// Accessories whose devices were closed for good, in order.
    private(set) var closedForGood: [String] = []

    func openSerial(
        path: String,
        settings: SerialSettings,
        maxOutboundBytes: Int,
        for accessory: String
    ) throws(TransportError) -> SerialOpening {
        if let failWith { throw failWith }
        let channel = FakeChannel()
        opened.append(channel)
        return SerialOpening(channel: channel, port: nil)
    }

    func closedForGood(_ accessory: String) { closedForGood.append(accessory) }

    func connectRFCOMM(
        to endpoint: RFCOMMEndpoint,
        maxOutboundBytes: Int,
        completion: @escaping (Result<any DeviceChannel, TransportError>) -> Void
    ) -> any PendingConnection {
        fatalError("the virtual-time tests open ttys only")
    }
}
