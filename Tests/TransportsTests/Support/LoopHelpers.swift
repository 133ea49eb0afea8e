import AccessoryTestSupport
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

extension SplitMix64 {
    /// `count` random bytes, none of them in `excluded`.
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
