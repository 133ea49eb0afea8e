import AccessoryTestSupport

/// The soak's one source of randomness: SplitMix64 from a printed seed, so that a run's choices
/// (not its timing) can be repeated with `--seed`.
///
/// Threading: the soak's loop thread only (shared by reference between its parts).
final class SoakRandom {
    private var generator: SplitMix64

    init(seed: UInt64) { generator = SplitMix64(seed: seed) }

    func next() -> UInt64 { generator.next() }

    /// A uniform integer in `range`.
    func int(_ range: ClosedRange<Int>) -> Int {
        range.lowerBound + Int(next() % UInt64(range.upperBound - range.lowerBound + 1))
    }

    /// True with probability `p` (0...1).
    func chance(_ p: Double) -> Bool { generator.unit() < p }

    /// A random element of a non-empty collection.
    func pick<C: Collection>(_ items: C) -> C.Element {
        items[items.index(items.startIndex, offsetBy: int(0...(items.count - 1)))]
    }
}
