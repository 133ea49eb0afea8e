import IOLoop
import Operations

/// `wait_ms`: a request that may run only once its accessory is ready, waiting for that until a
/// deadline. Advanced NSOperations' dependency-producing condition: when the request reaches the
/// head of the accessory's queue and the accessory is not ready, the condition produces an
/// ``AwaitReadyOperation`` that runs first (it holds the queue, so the requests behind keep their
/// order) and ends when the accessory becomes ready or the deadline passes. Then the condition is
/// evaluated: ready, the request runs; not ready, it fails with `wait expired`.
///
/// Device loop only (conditions are called on the operation's loop).
struct AccessoryReadyCondition: OperationCondition {
    unowned let accessory: Accessory
    let deadline: LoopInstant

    var name: String { "\(accessory.name) ready" }

    func dependency(for operation: LoopOperation) -> LoopOperation? {
        guard accessory.state != .ready else { return nil }
        return AwaitReadyOperation(
            loop: accessory.loop,
            accessoryName: accessory.name,
            admission: accessory.admission,
            isReady: { [unowned accessory] in accessory.state == .ready },
            deadline: deadline,
            dependent: operation
        )
    }

    func evaluate(for operation: LoopOperation, completion: @escaping (ConditionResult) -> Void) {
        if accessory.state == .ready {
            completion(.satisfied)
        } else {
            completion(
                .failed(AccessoryError.waitExpired(device: accessory.name, what: "the accessory to become ready"))
            )
        }
    }
}

/// Waits, in the accessory's queue, until the accessory is ready, the deadline passes, or the
/// request it waits for has finished (cancelled, its client gone). It never fails: the
/// condition that produced it decides what its request does next.
///
/// Its deadline timer goes through its loop, a ``LoopScheduler``, so its tests run on virtual
/// time.
///
/// Device loop only, except what `LoopOperation` allows from any thread (`cancel`).
final class AwaitReadyOperation: LoopOperation, @unchecked Sendable {  // @unchecked: state is device-loop-confined.
    /// The accessory's admission: it keeps the waits, so that readiness, or the end of the
    /// request a wait is for, ends it.
    unowned let admission: Admission<RequestOperation>
    /// Whether the accessory is ready.
    let isReady: () -> Bool
    let deadline: LoopInstant
    /// The request this wait is for.
    weak var dependent: LoopOperation?
    private var timer: LoopTimer?

    init(
        loop: any LoopScheduler,
        accessoryName: String,
        admission: Admission<RequestOperation>,
        isReady: @escaping () -> Bool,
        deadline: LoopInstant,
        dependent: LoopOperation
    ) {
        self.admission = admission
        self.isReady = isReady
        self.deadline = deadline
        self.dependent = dependent
        super.init(loop: loop, name: "\(accessoryName).await-ready(\(dependent.name))")
    }

    override func execute() {
        guard !isReady(), let dependent, !dependent.isFinished else { return finish() }
        let now = loop.now
        guard deadline > now else { return finish() }
        admission.readyWaiters.append(self)
        timer = loop.scheduleTimer(after: deadline - now) { [weak self] in self?.finish() }
    }

    override func willFinish(error: (any Error)?) {
        timer?.cancel()
        timer = nil
        admission.readyWaiters.removeAll { $0 === self }
    }
}
