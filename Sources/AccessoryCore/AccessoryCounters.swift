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

    /// What `device.status` shows.
    var status: DeviceStatusResult.Counters {
        var c = DeviceStatusResult.Counters()
        c.bytesIn = Int64(bytesIn)
        c.bytesOut = Int64(bytesOut)
        c.framesIn = Int64(framesIn)
        c.framesOut = Int64(framesOut)
        c.framesDropped = Int64(framesDropped)
        c.unsolicitedFrames = Int64(unsolicitedFrames)
        c.requestsOK = Int64(requestsOK)
        c.requestsFailed = Int64(requestsFailed)
        c.requestsCancelled = Int64(requestsCancelled)
        c.requestsTimedOut = Int64(requestsTimedOut)
        c.opens = Int64(opens)
        c.openAttempts = Int64(openAttempts)
        c.removals = Int64(removals)
        c.resyncs = Int64(resyncs)
        c.resyncDiscardedFrames = Int64(resyncDiscardedFrames)
        c.probeFailures = Int64(probeFailures)
        c.latency = latencyPercentiles().map { .init(p50Ms: $0.p50, p99Ms: $0.p99) }
        return c
    }
}
