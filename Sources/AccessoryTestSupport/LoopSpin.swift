import IOLoop

/// Runs `loop` (owned by the calling thread) until `condition` holds or `seconds` pass; returns
/// whether it holds. Bounded: a guard timer ends the run at the deadline. Loop thread only.
@discardableResult
package func spin(_ loop: IOLoop, seconds: Double = 5, until condition: () -> Bool) -> Bool {
    var expired = false
    let guardTimer = loop.scheduleTimer(after: .milliseconds(Int64(seconds * 1000))) { expired = true }
    loop.run(while: { !condition() && !expired })
    guardTimer.cancel()
    return condition()
}

/// Runs `loop` for `duration` exactly (whatever happens). Loop thread only.
package func spin(_ loop: IOLoop, for duration: Duration) {
    loop.run(until: loop.now + duration)
}
