import ControlProtocol

/// Per-accessory counters for `device.status`: traffic, request outcomes and latency.
///
/// Device loop only.
struct AccessoryCounters {
    var bytesIn: UInt64 = 0
    var bytesOut: UInt64 = 0
    var framesIn: UInt64 = 0
    var framesOut: UInt64 = 0
    var framesDropped: UInt64 = 0
    var unsolicitedFrames: UInt64 = 0
    var requestsOK: UInt64 = 0
    var requestsFailed: UInt64 = 0
    var requestsCancelled: UInt64 = 0
    var requestsTimedOut: UInt64 = 0
    var opens: UInt64 = 0
    /// Every attempt to open or connect, successful or not (the back-off shows in its rate).
    var openAttempts: UInt64 = 0
    var removals: UInt64 = 0
    /// Resyncs started after a request ended without its answer (not the settle after a reopen).
    var resyncs: UInt64 = 0
    /// Frames a resync discarded: late answers, probe answers, noise.
    var resyncDiscardedFrames: UInt64 = 0
    /// Probe attempts that got no matching answer in time (or could not be sent).
    var probeFailures: UInt64 = 0
    var lastError: String?

    /// The latest request latencies (microseconds), a ring: percentiles over a recent window.
    private var latencies = [UInt32](repeating: 0, count: 1024)
    private var latencyCount = 0

    mutating func recordLatency(nanoseconds: UInt64) {
        let us = UInt32(clamping: nanoseconds / 1000)
        latencies[latencyCount % latencies.count] = us
        latencyCount += 1
    }

    /// (p50, p99) in milliseconds over the window, nil before the first request.
    func latencyPercentiles() -> (p50: Double, p99: Double)? {
        let n = min(latencyCount, latencies.count)
        guard n > 0 else { return nil }
        let sorted = latencies[0..<n].sorted()
        func at(_ q: Double) -> Double { Double(sorted[min(n - 1, Int(Double(n) * q))]) / 1000 }
        return (at(0.5), at(0.99))
    }

    func json() -> JSONValue {
        var o: JSONObject = [:]
        o.append("bytes_in", .integer(Int64(bytesIn)))
        o.append("bytes_out", .integer(Int64(bytesOut)))
        o.append("frames_in", .integer(Int64(framesIn)))
        o.append("frames_out", .integer(Int64(framesOut)))
        o.append("frames_dropped", .integer(Int64(framesDropped)))
        o.append("unsolicited_frames", .integer(Int64(unsolicitedFrames)))
        o.append("requests_ok", .integer(Int64(requestsOK)))
        o.append("requests_failed", .integer(Int64(requestsFailed)))
        o.append("requests_cancelled", .integer(Int64(requestsCancelled)))
        o.append("requests_timed_out", .integer(Int64(requestsTimedOut)))
        o.append("opens", .integer(Int64(opens)))
        o.append("open_attempts", .integer(Int64(openAttempts)))
        o.append("removals", .integer(Int64(removals)))
        o.append("resyncs", .integer(Int64(resyncs)))
        o.append("resync_discarded_frames", .integer(Int64(resyncDiscardedFrames)))
        o.append("probe_failures", .integer(Int64(probeFailures)))
        if let (p50, p99) = latencyPercentiles() {
            o.append("latency_p50_ms", .number(.double(p50)))
            o.append("latency_p99_ms", .number(.double(p99)))
        }
        return .object(o)
    }
}
