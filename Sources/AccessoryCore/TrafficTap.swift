import ControlProtocol
import SystemCalls
import TrafficTrace

/// Where an accessory's traffic goes when someone traces it: its trace file's writer and the
/// clients subscribed to `device.traffic`. The accessory holds one only while either exists, so
/// that without tracing its read and write paths pay one test of a nil reference.
///
/// Device loop only.
final class TrafficTap {
    let device: String
    /// The trace file's writer, if the accessory has `trace:` and the file could be opened.
    var writer: TraceWriter?
    /// The clients subscribed to `device.traffic` on this accessory that may use it.
    var subscribers: [any RequestOrigin] = []
    /// The notification being encoded, kept between records so that its storage is reused.
    private var line: [UInt8] = []

    init(device: String) { self.device = device }

    var isIdle: Bool { writer == nil && subscribers.isEmpty }

    /// Bytes went to (`tx`, with the request that sent them) or came from (`rx`) the device.
    func record(_ direction: TrafficRecord.Direction, _ bytes: [UInt8], client: UInt64?, request: RequestID?) {
        let now = WallClock.microsecondsSinceEpoch()
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
