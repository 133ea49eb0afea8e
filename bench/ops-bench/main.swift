// ops-bench: operations per second through one DeviceQueue, against Foundation's OperationQueue
// doing the same work (docs/architecture.md, "Operations").
//
// Each variant pushes N operations from the main thread into a serial queue whose work finishes
// at once on the device loop (a spawned IOLoop thread). The clock runs from the first add to the
// last finish. Foundation's variant is an asynchronous `Operation` on an `OperationQueue` with
// maxConcurrentOperationCount = 1 whose start() hops to the same loop with perform and finishes
// there (the research note's experiment, section 6): the shape a daemon would have had with it.
//
// Usage: swift run -c release ops-bench [operations] [repetitions]
import Dispatch
import Foundation
import IOLoop
import Operations
import Synchronization

let arguments = CommandLine.arguments
let count = arguments.count > 1 ? Int(arguments[1]) ?? 200_000 : 200_000
let repetitions = arguments.count > 2 ? Int(arguments[2]) ?? 7 : 7
/// For profiling: run only the variant with this index (0-based).
let onlyVariant = arguments.count > 3 ? Int(arguments[3]) : nil

/// Signals when `target` operations have finished. The count is loop-confined in our variants and
/// touched from Foundation's threads in its variant, so it is atomic.
final class Finisher: Sendable {
    let target: Int
    let done = Atomic<Int>(0)
    let semaphore = DispatchSemaphore(value: 0)
    init(target: Int) { self.target = target }
    func one() {
        if done.wrappingAdd(1, ordering: .relaxed).newValue == target { semaphore.signal() }
    }
}

// MARK: - Our operations

/// The lightest operation: a subclass that finishes inside execute().
final class ImmediateOperation: LoopOperation, @unchecked Sendable {  // @unchecked: only an immutable Sendable field.
    let finisher: Finisher
    init(loop: IOLoop, finisher: Finisher) {
        self.finisher = finisher
        super.init(loop: loop)
    }
    override func execute() {
        finish()
        finisher.one()
    }
}

func runDeviceQueue(loop: IOLoop, blocks: Bool, batch: Int) -> Double {
    let queue = DeviceQueue(loop: loop)
    let finisher = Finisher(target: count)
    let start = ContinuousClock.now
    var pending: [LoopOperation] = []
    pending.reserveCapacity(batch)
    for _ in 0..<count {
        let op: LoopOperation
        if blocks {
            op = BlockLoopOperation(loop: loop) { done in
                done()
                finisher.one()
            }
        } else {
            op = ImmediateOperation(loop: loop, finisher: finisher)
        }
        if batch == 1 {
            queue.addOperation(op)
        } else {
            pending.append(op)
            if pending.count == batch {
                queue.addOperations(pending)
                pending.removeAll(keepingCapacity: true)
            }
        }
    }
    if !pending.isEmpty { queue.addOperations(pending) }
    finisher.semaphore.wait()
    return seconds(ContinuousClock.now - start)
}

// MARK: - Foundation

/// An asynchronous Foundation operation that finishes on the loop thread.
final class LoopHoppingOperation: Operation, @unchecked Sendable {  // @unchecked: `flags` is a Mutex.
    let loop: IOLoop
    let finisher: Finisher
    private let flags = Mutex((executing: false, finished: false))

    init(loop: IOLoop, finisher: Finisher) {
        self.loop = loop
        self.finisher = finisher
    }

    override var isAsynchronous: Bool { true }
    override var isExecuting: Bool { flags.withLock { $0.executing } }
    override var isFinished: Bool { flags.withLock { $0.finished } }

    override func start() {
        loop.perform { [self] in
            if !isCancelled {
                willChangeValue(forKey: "isExecuting")
                flags.withLock { $0.executing = true }
                didChangeValue(forKey: "isExecuting")
            }
            // The work: nothing. Finish on the loop thread.
            willChangeValue(forKey: "isExecuting")
            willChangeValue(forKey: "isFinished")
            flags.withLock { $0 = (false, true) }
            didChangeValue(forKey: "isExecuting")
            didChangeValue(forKey: "isFinished")
            finisher.one()
        }
    }
}

func runFoundation(loop: IOLoop) -> Double {
    let queue = OperationQueue()
    queue.maxConcurrentOperationCount = 1
    let finisher = Finisher(target: count)
    let start = ContinuousClock.now
    for _ in 0..<count {
        queue.addOperation(LoopHoppingOperation(loop: loop, finisher: finisher))
    }
    finisher.semaphore.wait()
    let elapsed = seconds(ContinuousClock.now - start)
    queue.waitUntilAllOperationsAreFinished()
    return elapsed
}

// MARK: - Report

func seconds(_ d: Duration) -> Double {
    let (s, atto) = d.components
    return Double(s) + Double(atto) / 1e18
}

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func formatRate(_ r: Double) -> String {
    let n = Int(r.rounded())
    var digits = Array(String(n))
    var i = digits.count - 3
    while i > 0 {
        digits.insert(",", at: i)
        i -= 3
    }
    return String(digits)
}

let loop = try IOLoop.spawn(name: "ops-bench")
let variants: [(name: String, run: () -> Double)] = [
    (
        "DeviceQueue, BlockLoopOperation, addOperation one by one",
        { runDeviceQueue(loop: loop, blocks: true, batch: 1) }
    ),
    (
        "DeviceQueue, LoopOperation subclass, addOperation one by one",
        { runDeviceQueue(loop: loop, blocks: false, batch: 1) }
    ),
    (
        "DeviceQueue, LoopOperation subclass, addOperations in batches of 64",
        {
            runDeviceQueue(loop: loop, blocks: false, batch: 64)
        }
    ),
    ("Foundation OperationQueue (max 1), async Operation finishing on the loop", { runFoundation(loop: loop) }),
]

// One warm-up round of each, then the measured repetitions, interleaved so that machine noise
// spreads over all variants alike.
if let only = onlyVariant {
    for _ in 0...repetitions {
        print("\(variants[only].name): \(formatRate(Double(count) / variants[only].run())) ops/s")
    }
    loop.shutdown()
    exit(0)
}
for v in variants { _ = v.run() }
var rates = Array(repeating: [Double](), count: variants.count)
for _ in 0..<repetitions {
    for (i, v) in variants.enumerated() {
        // Let the previous run's threads (libdispatch's, after Foundation) go idle first.
        Thread.sleep(forTimeInterval: 0.1)
        rates[i].append(Double(count) / v.run())
    }
}
loop.shutdown()

let foundationMedian = median(rates[variants.count - 1])
print("ops-bench: \(formatRate(Double(count))) operations per run, \(repetitions) runs per variant, medians\n")
print("| variant | median ops/s | min | max | × Foundation |")
print("|---|---:|---:|---:|---:|")
for (i, v) in variants.enumerated() {
    let m = median(rates[i])
    let ratio = String(format: "%.1f", m / foundationMedian)
    print(
        "| \(v.name) | \(formatRate(m)) | \(formatRate(rates[i].min()!)) | \(formatRate(rates[i].max()!)) | \(ratio) |"
    )
}
