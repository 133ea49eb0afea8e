import AccessoryConfig
import ControlProtocol
import SystemCalls
import TrafficTrace
import Transports

extension Accessory {
    /// Writes bytes of `operation` (a request's frame, or a raw session's bytes) to the device:
    /// the one place bytes go to it, so the one place they are traced. Device loop.
    @inline(__always)
    func send(_ bytes: [UInt8], on channel: any DeviceChannel, for operation: RequestOperation) throws(TransportError) {
        try channel.write(bytes)
        if let tap { tap.record(.tx, bytes, client: operation.origin.clientID, request: operation.requestID) }
    }

    /// Opens the trace file, if the accessory has one, and starts its writer. A file that cannot
    /// be opened is logged and the accessory serves without it. Device loop.
    func startTraceFile() {
        loop.assertInLoop()
        guard let trace = settings.trace, trafficTap?.writer == nil, !isShutDown else { return }
        let file: RotatingTraceFile
        do {
            file = try RotatingTraceFile.open(path: trace.file, maxBytes: Int64(trace.maxBytes), keep: trace.keep)
        } catch {
            counters.lastError = error.description
            log(.error, "\(name): not tracing: \(error)")
            return
        }
        let (loop, link, name) = (self.loop, self.link, self.name)
        let writer = TraceWriter(device: name, layout: TraceLayout(trace.format), sink: file) { message in
            loop.perform { link.accessory?.log(.error, "\(name): trace: \(message)") }
        }
        tapForUpdate.writer = writer
        updateTap()
        log(.info, "\(name): tracing to \(trace.file) (\(trace.format.rawValue))")
    }

    /// Stops the trace file's writer: it writes what is queued and closes the file on its own
    /// thread. The device loop does not wait for it (a stalled disk must not stall everyone's
    /// accessories, at reload or shutdown); the daemon's main thread waits, bounded, at exit
    /// (``TraceWriter/awaitFinishing(within:)``). Device loop.
    func stopTraceFile() {
        guard let writer = trafficTap?.writer else { return }
        trafficTap?.writer = nil
        updateTap()
        writer.finish()
    }

    /// The clients subscribed to this accessory's traffic changed. Device loop.
    func setTrafficSubscribers(_ subscribers: [any RequestOrigin]) {
        loop.assertInLoop()
        guard !subscribers.isEmpty || !(trafficTap?.subscribers.isEmpty ?? true) else { return }
        tapForUpdate.subscribers = subscribers
        updateTap()
    }

    /// The tap, made if there is none yet.
    private var tapForUpdate: TrafficTap {
        if let trafficTap { return trafficTap }
        let made = TrafficTap(device: name)
        trafficTap = made
        return made
    }

    /// `tap` (what the byte paths test) is the tap while it has somewhere to send bytes, nil
    /// otherwise.
    private func updateTap() {
        tap = trafficTap.flatMap { $0.isIdle ? nil : $0 }
    }

    /// `trace` in `device.status`: the file and its counts, if the accessory traces to one.
    func traceStatus() -> DeviceStatusResult.Trace? {
        guard let trace = settings.trace else { return nil }
        let writer = trafficTap?.writer.map { writer in
            let statistics = writer.statistics
            return DeviceStatusResult.Trace.Writer(
                tracedBytes: statistics.tracedBytes,
                droppedBytes: statistics.droppedBytes,
                lastError: statistics.lastError
            )
        }
        return DeviceStatusResult.Trace(file: trace.file, format: trace.format.rawValue, writer: writer)
    }
}

extension TraceLayout {
    init(_ format: TraceSettings.Format) {
        switch format {
        case .text: self = .text
        case .hexdump: self = .hexdump
        case .jsonl: self = .jsonl
        }
    }
}
