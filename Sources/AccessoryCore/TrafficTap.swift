import ControlProtocol
import SystemCalls
import TrafficTrace

/// Where an accessory's traffic goes when someone traces it: its trace file's writer and the
/// clients subscribed to `device.traffic`. The accessory holds one only while either exists, so
/// that without tracing its read and write paths pay one test of a nil reference.
///
/// Device loop only.
final class TrafficTap {
    /// A record made while the tap was held (``hold()``), stamped when it was made.
    ///
    /// Threading: a value. Device loop only.
    private struct Held {
        var direction: TrafficRecord.Direction
        var bytes: [UInt8]
        var client: UInt64?
        var request: RequestID?
        var timestampMicroseconds: Int64
    }

    let device: String
    /// The trace file's writer, if the accessory has `trace:` and the file could be opened.
    var writer: TraceWriter?
    /// The clients subscribed to `device.traffic` on this accessory that may use it.
    var subscribers: [any RequestOrigin] = []
    /// The notification being encoded, kept between records so that its storage is reused.
    private var line: [UInt8] = []
    /// Records waiting for ``release()``; nil when not held.
    private var held: [Held]?

    init(device: String) { self.device = device }

    var isIdle: Bool { writer == nil && subscribers.isEmpty }

    /// Bytes went to (`tx`, with the request that sent them) or came from (`rx`) the device.
    func record(_ direction: TrafficRecord.Direction, _ bytes: [UInt8], client: UInt64?, request: RequestID?) {
        let now = WallClock.microsecondsSinceEpoch()
        if held != nil {
            held?.append(
                Held(direction: direction, bytes: bytes, client: client, request: request, timestampMicroseconds: now)
            )
            return
        }
        emit(direction, bytes, client: client, request: request, at: now)
    }

    /// A `control` request (`client`'s `request`) set a line or sent a break.
    func record(control: LineControl, client: UInt64?, request: RequestID?) {
        record(.control, control.packed, client: client, request: request)
    }

    /// Keeps what ``record(_:_:client:request:)`` is given until ``release()``, so that records
    /// made while a read is being delivered follow that read's, which ``emit(_:_:client:request:at:)``
    /// writes meanwhile.
    func hold() {
        if held == nil { held = [] }
    }

    /// Writes the records kept since ``hold()``, in order, and stops holding.
    func release() {
        guard let records = held.take() else { return }
        for r in records {
            emit(r.direction, r.bytes, client: r.client, request: r.request, at: r.timestampMicroseconds)
        }
    }

    /// Writes a record now, held or not, stamped `now` (µs since the epoch).
    func emit(
        _ direction: TrafficRecord.Direction,
        _ bytes: [UInt8],
        client: UInt64?,
        request: RequestID?,
        at now: Int64
    ) {
        bytes.withUnsafeBufferPointer { bytes in
            writer?.append(
                direction: direction,
                timestampMicroseconds: now,
                client: client,
                request: request,
                bytes: bytes
            )
            guard !subscribers.isEmpty else { return }
            line.removeAll(keepingCapacity: true)
            ResponseEncoder.deviceTraffic(
                device: device,
                timestampMicroseconds: now,
                direction: direction,
                client: client,
                request: request,
                bytes: bytes,
                into: &line
            )
        }
        for subscriber in subscribers { subscriber.notify(line: line) }
    }
}
