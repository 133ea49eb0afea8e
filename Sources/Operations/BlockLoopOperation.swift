import IOLoop

/// An operation whose work is a block that is handed a `done` callback (the AsyncBlockOperation
/// pattern): the block starts the work on the loop thread and calls `done()` or `done(error)`
/// when it ends.
///
/// Threading: the block runs on the loop thread, once, when the operation executes. `done` may be
/// called from any thread (off the loop it is forwarded with `perform`); it must be called at most
/// once. If the operation was cancelled (or timed out) first, it has already finished with the
/// cancel error and `done` is ignored. The block is released once the operation finishes.
public final class BlockLoopOperation: LoopOperation, @unchecked Sendable {  // @unchecked: loop-confined after init.

    /// What the block calls when its work ends: `done()` on success, `done(error)` on failure.
    /// A value (no allocation); it can be stored, and called from any thread. Any thread.
    public struct Done: Sendable {
        let operation: BlockLoopOperation

        public func callAsFunction(_ error: (any Error)? = nil) {
            let op = operation
            if op.loop.inLoop {
                op.done(error)
            } else {
                op.loop.perform { op.done(error) }
            }
        }
    }

    private var block: ((Done) -> Void)?
    private var doneCalled = false

    /// Makes an operation that runs `block` on `loop`'s thread. Any thread.
    public init(loop: any LoopScheduler, name: String? = nil, _ block: @escaping (_ done: Done) -> Void) {
        self.block = block
        super.init(loop: loop, name: name)
    }

    override public func execute() {
        guard let block else { preconditionFailure("BlockLoopOperation executed twice") }
        self.block = nil
        block(Done(operation: self))
    }

    fileprivate func done(_ error: (any Error)?) {
        precondition(!doneCalled, "done called twice by the block of \(name)")
        doneCalled = true
        if state == .finished { return }  // cancelled or timed out first
        finishOnLoop(errors: error.map { [$0] } ?? [])  // on the loop: checked by `Done`
    }

    override public func willFinish(error: (any Error)?) {
        block = nil
    }
}
