/// A small, fast, seedable random number generator (SplitMix64), so that a test's or the soak's
/// random choices can be repeated from a seed. The one copy for tests, benchmarks and the soak;
/// the simulator keeps its own, since a shipped module cannot depend on this one.
///
/// A value: any thread, one owner at a time (each thread that draws keeps its own).
package struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform number in 0..<1.
    package mutating func unit() -> Double { Double(next() >> 11) / Double(1 << 53) }
}
