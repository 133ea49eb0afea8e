extension LoopOperation {
    /// The outcome, for async/await callers: suspends until the operation finishes (returns at
    /// once if it has), then gives `.success` or `.failure(error)`. Any thread or task.
    ///
    /// Waiting does not start the operation, and cancelling the waiting task does not cancel the
    /// operation (call ``cancel(error:)`` for that). A waiter registers on the loop (with
    /// `perform`); if the loop has shut down before the operation finished, it gets
    /// ``OperationError/loopShutDown``. An operation that is never started never resumes its
    /// waiters.
    public var result: Result<Void, any Error> {
        get async {
            if let done = finishedResult { return done }
            return await withCheckedContinuation { (c: CheckedContinuation<Result<Void, any Error>, Never>) in
                let queued = loop.perform { [self] in
                    if let done = finishedResult {
                        c.resume(returning: done)
                    } else {
                        resultWaiters.append { c.resume(returning: $0) }
                    }
                }
                if !queued {
                    c.resume(returning: finishedResult ?? .failure(OperationError.loopShutDown))
                }
            }
        }
    }

    /// Waits for the operation to finish and rethrows its error. Any thread or task.
    public func value() async throws {
        try await result.get()
    }
}
