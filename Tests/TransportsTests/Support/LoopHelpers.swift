import IOLoop
import SystemCalls
import Transports

/// Counts the loop's iterations (its before-waiting observer calls). Loop thread only.
final class IterationCounter {
    private(set) var count = 0
    private var observer: LoopObserver?

    init(_ loop: IOLoop) {
        observer = loop.addObserver(activities: .beforeWaiting) { [unowned self] _ in count += 1 }
    }

    func reset() { count = 0 }

    deinit { observer?.cancel() }
}

/// A place to keep an fd that a loop callback closes later. Loop thread only.
final class FDBox {
    var fd: OwnedFD?
    let raw: CInt

    init(_ fd: consuming OwnedFD) {
        raw = fd.rawValue
        self.fd = consume fd
    }

    func close() { fd.take()?.close() }
}

/// Reads everything available now from a non-blocking fd (bounded). Any thread.
func drainAvailable(_ fd: CInt, max: Int = 1 << 20) -> [UInt8] {
    var out: [UInt8] = []
    while out.count < max {
        guard let chunk = try? FileIO.read(fd, max: 65536), !chunk.isEmpty else { break }
        out += chunk
    }
    return out
}

/// A deterministic generator for test data (SplitMix64). Any thread, one owner at a time.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func bytes(_ count: Int, excluding excluded: Set<UInt8> = []) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(count)
        while out.count < count {
            let b = UInt8.random(in: 0...255, using: &self)
            if !excluded.contains(b) { out.append(b) }
        }
        return out
    }
}

/// A counter that fault-injection rules (which are `@Sendable`) can bump. Any thread. (A
/// pthread-based `Locked`, which ThreadSanitizer understands, rather than `Mutex`.)
final class Counter: Sendable {
    private let storage = Locked<Int>(0)

    var value: Int { storage.withLock { $0 } }

    /// Adds one and returns the new value.
    @discardableResult
    func increment() -> Int {
        storage.withLock { v in
            v += 1
            return v
        }
    }
}

/// Writes to a socket without risking `SIGPIPE` (the other end may be closed by the test).
@discardableResult
func sendToSocket(_ fd: CInt, _ bytes: [UInt8]) throws -> IOResult<Int> {
    try bytes.withUnsafeBytes { try Socket.send(fd, from: $0) }
}
