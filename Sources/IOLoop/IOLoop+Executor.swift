extension IOLoop: SerialExecutor {
    /// Runs a Swift concurrency job on the loop thread: an actor whose `unownedExecutor` is this
    /// loop runs its methods here. Any thread.
    public func enqueue(_ job: consuming ExecutorJob) {
        let unowned = UnownedJob(job)
        if !enqueue(.job(unowned)) {
            // The loop has shut down; there is nowhere to run the job. Dropping it would leak the
            // task forever, so this is a programmer error (an actor outlived its loop).
            preconditionFailure("a job was enqueued on loop \(name) after it shut down")
        }
    }

    /// Any thread.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
        UnownedSerialExecutor(ordinary: self)
    }

    /// Lets `assumeIsolated` work from raw fd and timer callbacks on the loop thread. Any thread.
    public func checkIsolated() {
        preconditionInLoop()
    }
}
