/// Latency samples in nanoseconds, sorted once, read as percentiles in microseconds.
///
/// Threading: a value. Any thread.
struct Samples {
    let sorted: [UInt64]

    init(_ samples: [UInt64]) { sorted = samples.sorted() }

    var count: Int { sorted.count }

    /// The `p` quantile (nearest rank) in microseconds; 0 without samples.
    func percentile(_ p: Double) -> Double {
        guard !sorted.isEmpty else { return 0 }
        let index = min(sorted.count - 1, max(0, Int((p * Double(sorted.count)).rounded(.up)) - 1))
        return Double(sorted[index]) / 1_000
    }
}
