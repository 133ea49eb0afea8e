import IOLoop

/// A loop that can say what it still holds (``IOLoop`` and ``EmbeddedLoop``). Loop thread only.
package protocol LeftoverReporting {
    /// Live sources and timers, observers and queued blocks. Loop thread only.
    var leftovers: LoopLeftovers { get }
}

extension IOLoop: LeftoverReporting {}
extension EmbeddedLoop: LeftoverReporting {}

/// A loop test ended with something still registered or queued on its loop.
///
/// A value. Any thread.
package struct LoopLeftoversError: Error, CustomStringConvertible {
    package let leftovers: LoopLeftovers
    package var description: String { "the test left \(leftovers) on its loop" }
}

/// The end-of-test check of libuv's test suite, for our loops: every loop test must leave its
/// loop as it found it, with no source, timer, observer or block behind, so that a leak (a
/// timer a code path forgot to cancel) fails the test that caused it instead of going unseen.
///
/// Any thread (each function says on which thread it looks).
package enum LoopLeakCheck {
    /// Throws ``LoopLeftoversError`` if `loop` still holds anything. Loop thread only.
    package static func expectNothingLeft(on loop: some LeftoverReporting) throws(LoopLeftoversError) {
        let left = loop.leftovers
        if !left.isEmpty { throw LoopLeftoversError(leftovers: left) }
    }

    /// Throws ``LoopLeftoversError`` if the spawned `loop` still holds anything, looked at from
    /// a block on its own thread (which does not count itself). Any thread but the loop's.
    package static func expectNothingLeft(onSpawned loop: IOLoop) throws(LoopLeftoversError) {
        guard let left = Wait.onLoop(loop, { loop.leftovers }) else {
            preconditionFailure("loop \(loop.name) did not run the leftovers check within 10 s")
        }
        if !left.isEmpty { throw LoopLeftoversError(leftovers: left) }
    }
}

/// Runs `body` with a new loop driven by the calling thread, then checks that the body left
/// nothing on it (``LoopLeakCheck``), and shuts the loop down either way. Throws what `body`
/// throws, else ``LoopLeftoversError``. Any thread (the loop is the calling thread's).
package func withCheckedLoop<R>(name: String = "test-loop", _ body: (IOLoop) throws -> R) throws -> R {
    let loop = try IOLoop.forCurrentThread(name: name)
    defer { loop.shutdown() }
    let result = try body(loop)
    try LoopLeakCheck.expectNothingLeft(on: loop)
    return result
}

/// Runs `body` with a new loop on its own thread, then checks that nothing is left on it
/// (``LoopLeakCheck``), and shuts it down either way. Any thread.
package func withCheckedSpawnedLoop<R>(name: String, _ body: (IOLoop) throws -> R) throws -> R {
    let loop = try IOLoop.spawn(name: name)
    defer { loop.shutdown() }
    let result = try body(loop)
    try LoopLeakCheck.expectNothingLeft(onSpawned: loop)
    return result
}

/// The async form of ``withCheckedSpawnedLoop(name:_:)``, for tests that await on the loop.
package func withCheckedSpawnedLoop<R>(name: String, _ body: (IOLoop) async throws -> R) async throws -> R {
    let loop = try IOLoop.spawn(name: name)
    defer { loop.shutdown() }
    let result = try await body(loop)
    try LoopLeakCheck.expectNothingLeft(onSpawned: loop)
    return result
}
