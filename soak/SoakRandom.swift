/// The soak's one source of randomness: SplitMix64 from a printed seed, so that a run's choices
/// (not its timing) can be repeated with `--seed`.
///
/// Threading: the soak's loop thread only (shared by reference between its parts).
final class SoakRandom {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform integer in `range`.
    func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    /// True with probability `p` (0...1).
    func chance(_ p: Double) -> Bool { Double(next() >> 11) / Double(1 << 53) < p }

    /// A random element of a non-empty collection.
    func pick<C: Collection>(_ items: C) -> C.Element {
        items[items.index(items.startIndex, offsetBy: int(0...(items.count - 1)))]
    }
}
