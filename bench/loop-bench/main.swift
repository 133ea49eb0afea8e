// loop-bench: the cross-thread perform hop and burst throughput of IOLoop, side by side with a
// DispatchQueue serial queue and a thread running Foundation's RunLoop, in one run.
//
//   swift run -c release loop-bench [--repetitions N]
//
// Prints a Markdown table. Numbers are medians over the repetitions; compare ratios, not absolute
// values, on a shared machine.
import Dispatch
import Foundation
import IOLoop
import Synchronization

struct Target {
    let name: String
    /// Queues a block for the target's thread.
    let submit: (@escaping @Sendable () -> Void) -> Void
    let teardown: () -> Void
}

func nowNS() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

func makeIOLoop() -> Target {
    let loop = try! IOLoop.spawn(name: "bench-loop")
    return Target(name: "IOLoop.perform", submit: { loop.perform($0) }, teardown: { loop.shutdown() })
}

func makeDispatch() -> Target {
    let q = DispatchQueue(label: "bench-serial")
    return Target(name: "DispatchQueue.async", submit: { q.async(execute: $0) }, teardown: {})
}

final class RunLoopThread: @unchecked Sendable {  // @unchecked: `runLoop` is set once before `ready` is signalled.
    var runLoop: RunLoop!
    let ready = DispatchSemaphore(value: 0)
    let stopFlag = Atomic<Bool>(false)
    var thread: Thread!

    init() {
        thread = Thread { [self] in
            runLoop = RunLoop.current
            // A source keeps the run loop from returning immediately when idle (Port is abstract on
            // Linux; a far-future repeating timer does the job).
            runLoop.add(Timer(timeInterval: 1e9, repeats: true) { _ in }, forMode: .default)
            ready.signal()
            while !stopFlag.load(ordering: .relaxed) {
                _ = runLoop.run(mode: .default, before: Date(timeIntervalSinceNow: 0.1))
            }
        }
        thread.start()
        ready.wait()
    }
}

func makeRunLoop() -> Target {
    let t = RunLoopThread()
    return Target(
        name: "RunLoop.perform",
        submit: { block in
            t.runLoop.perform(inModes: [.default], block: block)
            // On Linux, perform(inModes:) does not wake a sleeping run loop and CFRunLoopWakeUp is
            // not exported to Swift; adding a due timer re-arms the loop's timer and wakes it.
            t.runLoop.add(Timer(timeInterval: 0, repeats: false) { _ in }, forMode: .default)
        },
        teardown: { t.stopFlag.store(true, ordering: .relaxed) }
    )
}

/// Hop latency: submit from this thread, measure until the block starts, one at a time.
func hopLatencies(_ target: Target, count: Int) -> [Double] {
    var out: [Double] = []
    out.reserveCapacity(count)
    let sem = DispatchSemaphore(value: 0)
    let arrival = Atomic<UInt64>(0)
    for _ in 0..<count {
        let t0 = nowNS()
        target.submit {
            arrival.store(nowNS(), ordering: .relaxed)
            sem.signal()
        }
        sem.wait()
        out.append(Double(arrival.load(ordering: .relaxed) - t0) / 1000)
    }
    return out.sorted()
}

/// Burst throughput: submit `count` blocks back to back, time until the last one ran.
func burstRate(_ target: Target, count: Int) -> Double {
    let sem = DispatchSemaphore(value: 0)
    let ran = Atomic<Int>(0)
    let t0 = nowNS()
    for _ in 0..<count {
        target.submit {
            if ran.wrappingAdd(1, ordering: .relaxed).newValue == count { sem.signal() }
        }
    }
    sem.wait()
    return Double(count) / (Double(nowNS() - t0) / 1e9)
}

func percentile(_ sorted: [Double], _ p: Double) -> Double {
    sorted[min(sorted.count - 1, Int(Double(sorted.count) * p))]
}

func median(_ xs: [Double]) -> Double { xs.sorted()[xs.count / 2] }

var repetitions = 5
if let i = CommandLine.arguments.firstIndex(of: "--repetitions"), i + 1 < CommandLine.arguments.count {
    repetitions = Int(CommandLine.arguments[i + 1]) ?? 5
}

let makers: [() -> Target] = [makeIOLoop, makeDispatch, makeRunLoop]
var p50: [String: [Double]] = [:]
var p99: [String: [Double]] = [:]
var burst: [String: [Double]] = [:]
var names: [String] = []

for rep in 0..<repetitions {
    // Interleave targets within each repetition so that machine noise hits all of them alike.
    for make in makers {
        let t = make()
        if rep == 0 { names.append(t.name) }
        _ = hopLatencies(t, count: 2000)  // warm-up
        let lat = hopLatencies(t, count: 20_000)
        p50[t.name, default: []].append(percentile(lat, 0.5))
        p99[t.name, default: []].append(percentile(lat, 0.99))
        burst[t.name, default: []].append(burstRate(t, count: 1_000_000))
        t.teardown()
    }
}

let base = median(burst["IOLoop.perform"]!)
print("| target | hop p50 (µs) | hop p99 (µs) | burst (blocks/s) | burst vs IOLoop |")
print("|---|---:|---:|---:|---:|")
for n in names {
    let b = median(burst[n]!)
    print(
        "| \(n) | \(String(format: "%.1f", median(p50[n]!))) | \(String(format: "%.1f", median(p99[n]!))) | "
            + "\(String(format: "%.0f", b)) | \(String(format: "%.2f", b / base))× |"
    )
}
print("")
print(
    "medians of \(repetitions) interleaved repetitions; hop = perform on the bench thread → block starts on the target thread"
)
