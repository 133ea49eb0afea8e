import ControlProtocol

/// Per-accessory counters for `device.status`: traffic and request outcomes (counted straight
/// into the value `device.status` shows, named there: `counters.bytesIn += …` reaches it), the
/// last error and the latency window.
///
/// Device loop only.
@dynamicMemberLookup
struct AccessoryCounters {
    private var counts = DeviceStatusResult.Counters()

    subscript(dynamicMember count: WritableKeyPath<DeviceStatusResult.Counters, UInt64>) -> UInt64 {
        @inline(__always) get { counts[keyPath: count] }
        @inline(__always) set { counts[keyPath: count] = newValue }
    }

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
        var c = counts
        c.latency = latencyPercentiles().map { .init(p50Ms: $0.p50, p99Ms: $0.p99) }
        return c
    }
}
