import AccessoryTestSupport
import IOLoop
import Operations
import Synchronization
import Testing

/// The eleven orderings of init / start / cancel / startOnLoop / cancelOnLoop / finish / deinit
/// that QRunLoopOperation's theory-of-operation comment enumerates (DTS, 2010), one test each;
/// the three it marks as impossible (3, 6, 7) are shown not to happen, deterministically with the
/// state machine's pause points and statistically with real threads. The event names are those
/// of `_OperationTestHooks.Event`, plus "willCancel", "willFinish(…)" and "deinit" from
/// `ProbeOperation`.
@Suite("QRunLoopOperation orderings")
struct OperationOrderingTests {
    @Test("1: init, deinit — an operation that is never started runs nothing")
    func ordering01InitDeinit() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        do {
            let op = ProbeOperation(loop: loop, log: log)
            #expect(op.state == .initialized)
        }
        loop.run()
        #expect(log.all == ["deinit"])
    }

    @Test("2: init, cancel, deinit — cancelling an operation that is never started is allowed and runs nothing")
    func ordering02InitCancelDeinit() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        do {
            let op = ProbeOperation(loop: loop, log: log)
            op.cancel()
            op.cancel()
            #expect(op.isCancelled)
            #expect(op.state == .initialized, "cancel does not finish an operation that never started")
            #expect(loop.run() == 0, "nothing is queued on the loop for it")
        }
        #expect(log.all == ["cancelWinner", "cancelLoser", "deinit"])
    }

    @Test("3 (impossible): init, cancel, start, finish — start never finishes, not even on the loop thread")
    func ordering03CannotFinishInsideStart() throws {
        // On a real loop's own thread (where a shortcut would be most tempting) and on an
        // embedded loop: right after start() the operation is pending, not finished.
        let real = try IOLoop.forCurrentThread(name: "ordering-3")
        defer { real.shutdown() }
        for loop in [real as any LoopScheduler, EmbeddedLoop() as any LoopScheduler] {
            #expect(loop.inLoop)
            let log = Log<String>()
            weak var weakOp: ProbeOperation?
            do {
                let op = ProbeOperation(loop: loop, log: log)
                weakOp = op
                op.cancel()
                op.start()
                #expect(op.state == .pending)
                #expect(!op.isFinished)
                #expect(log.all == ["cancelWinner", "start"])
            }
            // Nor can it be freed before its start-on-loop block ran (the block retains it).
            #expect(weakOp != nil)
            if let real = loop as? IOLoop {
                // Bounded: run(while:) re-checks its condition only before it waits in epoll.
                real.run(until: real.now + .milliseconds(20))
            } else {
                (loop as! EmbeddedLoop).run()
            }
            #expect(weakOp == nil)
            let events = log.all
            let finish = try #require(events.firstIndex(of: "finish"))
            let startOnLoop = try #require(events.firstIndex(of: "startOnLoopCancelled"))
            #expect(startOnLoop < finish, "finish happens only inside start-on-loop")
        }
    }

    @Test("4: init, cancel, start, startOnLoop, finish, deinit — finishes cancelled without executing")
    func ordering04CancelBeforeStart() async {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        do {
            let op = ProbeOperation(loop: loop, log: log)
            op.cancel()
            op.start()
            loop.run()
            #expect(op.isFinished)
            #expect(!op.didExecute)
            #expect(op.operationError == .cancelled)
            let result = await op.result
            #expect(throws: OperationError.cancelled) { try result.get() }
        }
        #expect(
            log.all == [
                "cancelWinner", "start", "startOnLoopCancelled", "willCancel", "finish", "willFinish(cancelled)",
                "deinit",
            ]
        )
    }

    @Test(
        "5: init, start, cancel, startOnLoop, finish, cancelOnLoop — start on loop finishes it; cancel on loop bounces"
    )
    func ordering05CancelBetweenStartAndStartOnLoop() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        do {
            let op = ProbeOperation(loop: loop, log: log)
            op.start()
            op.cancel()
            loop.run()
            #expect(op.operationError == .cancelled)
            #expect(!op.didExecute)
        }
        #expect(
            log.all == [
                "start", "cancelWinner", "cancelScheduled", "startOnLoopCancelled", "willCancel", "finish",
                "willFinish(cancelled)", "cancelOnLoopBounce", "deinit",
            ]
        )
    }

    /// Ordering 6 would need cancel-on-loop to be queued before start-on-loop. A cancel can land
    /// at three points of start(): after its claim, after it queued its block, or after it set
    /// the scheduled bit. Each is forced here; all three give ordering 5.
    @Test(
        "6 (impossible): init, start, cancel, cancelOnLoop, startOnLoop — at every point a cancel can land inside start()",
        arguments: ["after claim", "after schedule", "after start returned"]
    )
    func ordering06CancelOnLoopNeverPrecedesStartOnLoop(point: String) throws {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let box = Mutex<ProbeOperation?>(nil)
        let cancelNow: @Sendable () -> Void = { box.withLock { $0 }?.cancel() }
        let op = ProbeOperation(loop: loop, log: log)
        op._testsOnlyHooks = _OperationTestHooks(
            trace: { log.append($0.rawValue) },
            startAfterClaim: point == "after claim" ? cancelNow : nil,
            startAfterSchedule: point == "after schedule" ? cancelNow : nil
        )
        box.withLock { $0 = op }
        op.start()
        if point == "after start returned" { op.cancel() }
        box.withLock { $0 = nil }
        loop.run()
        let events = log.all
        let startOnLoop = try #require(events.firstIndex { $0.hasPrefix("startOnLoop") })
        let cancelOnLoop = try #require(events.firstIndex { $0.hasPrefix("cancelOnLoop") })
        #expect(startOnLoop < cancelOnLoop)
        #expect(events[startOnLoop] == "startOnLoopCancelled")
        #expect(events[cancelOnLoop] == "cancelOnLoopBounce")
        #expect(!op.didExecute)
        #expect(op.operationError == .cancelled)
    }

    @Test(
        "7 (impossible): init, start, cancel, startOnLoop, cancelOnLoop, finish — start on loop never leaves a seen cancel to cancel on loop"
    )
    func ordering07StartOnLoopFinishesASeenCancel() throws {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        let op = ProbeOperation(loop: loop, log: log)
        op.start()
        op.cancel()
        loop.run()
        let events = log.all
        let finish = try #require(events.firstIndex(of: "finish"))
        let cancelOnLoop = try #require(events.firstIndex { $0.hasPrefix("cancelOnLoop") })
        #expect(finish < cancelOnLoop, "the finish happened inside start on loop, before cancel on loop")
        #expect(!events.contains("cancelOnLoopCancel"))
    }

    @Test("8: init, start, startOnLoop, finish — runs to completion")
    func ordering08Basic() async {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        do {
            let op = ProbeOperation(loop: loop, log: log)
            op.start()
            #expect(op.state == .pending)
            loop.run()
            #expect(op.state == .executing)
            op.finish()
            #expect(op.state == .finished)
            #expect(op.error == nil)
            #expect(!op.isCancelled)
            let result = await op.result
            #expect((try? result.get()) != nil)
        }
        #expect(log.all == ["start", "startOnLoopRun", "execute", "finish", "willFinish(nil)", "deinit"])
    }

    @Test("9: init, start, startOnLoop, cancel, cancelOnLoop, finish — cancelled while executing")
    func ordering09CancelWhileExecuting() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        do {
            let op = ProbeOperation(loop: loop, log: log)
            op.start()
            loop.run()
            #expect(op.isExecuting)
            op.cancel()
            #expect(op.isExecuting, "cancel only queues the work; the loop finishes it")
            loop.run()
            #expect(op.operationError == .cancelled)
            #expect(op.didExecute)
            #expect(op.endedByCancellation)
        }
        #expect(
            log.all == [
                "start", "startOnLoopRun", "execute", "cancelWinner", "cancelScheduled", "cancelOnLoopCancel",
                "willCancel", "finish", "willFinish(cancelled)", "deinit",
            ]
        )
    }

    @Test("10: init, start, startOnLoop, cancel, finish, cancelOnLoop — finish wins; cancel on loop bounces")
    func ordering10FinishBeatsCancelOnLoop() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        do {
            let op = ProbeOperation(loop: loop, log: log)
            let box = Mutex<ProbeOperation?>(op)
            // QRunLoopOperation's "much delayed cancel": the cancelling thread stalls after
            // winning; meanwhile the loop finishes the operation.
            op._testsOnlyHooks = _OperationTestHooks(
                trace: { log.append($0.rawValue) },
                cancelAfterClaim: { box.withLock { $0 }?.finish() }
            )
            op.start()
            loop.run()
            op.cancel()
            box.withLock { $0 = nil }
            loop.run()
            #expect(op.error == nil, "it finished before the cancellation reached the loop")
            #expect(op.isCancelled, "the cancel still won the flag")
            #expect(!op.endedByCancellation)
        }
        #expect(
            log.all == [
                "start", "startOnLoopRun", "execute", "cancelWinner", "finish", "willFinish(nil)", "cancelScheduled",
                "cancelOnLoopBounce", "deinit",
            ]
        )
    }

    @Test("11: init, start, startOnLoop, finish, cancel — a late cancel changes nothing")
    func ordering11CancelAfterFinish() {
        let loop = EmbeddedLoop()
        let log = Log<String>()
        do {
            let op = ProbeOperation(loop: loop, log: log, finishInExecute: true)
            op.start()
            loop.run()
            #expect(op.isFinished)
            op.cancel(error: DeviceGone())
            #expect(!op.isCancelled)
            #expect(op.error == nil)
            #expect(loop.run() == 0, "nothing was queued")
        }
        #expect(
            log.all == ["start", "startOnLoopRun", "execute", "finish", "willFinish(nil)", "cancelLoser", "deinit"]
        )
    }

    /// Orderings 3, 6 and 7 once more, with real threads: `start()` on one thread racing
    /// `cancel()` on another while the loop runs on a third, and operations finishing at once, on
    /// the next loop turn, or never by themselves. Each operation's loop-side events are checked.
    @Test("3, 6, 7 (impossible) under real races: start and cancel on two threads, the loop on a third")
    func impossibleOrderingsUnderRaces() throws {
        let loop = try IOLoop.spawn(name: "ordering-race")
        defer { loop.shutdown() }
        let count = 2000
        let logs = (0..<count).map { _ in Log<String>() }
        let ops = (0..<count).map { i in
            RaceOperation(loop: loop, log: logs[i], mode: i % 3)
        }
        let go = Atomic<Int>(-1)
        let starter = TestThread {
            for i in 0..<count {
                spinUntil(seconds: 5) { go.load(ordering: .acquiring) >= i }
                ops[i].start()
            }
        }
        var rng = SplitMix64(seed: 7)
        for i in 0..<count {
            go.store(i, ordering: .releasing)
            // Aim the cancel at a different moment each time: at once (usually before start),
            // once started, once executing, once finished; then a little random slack.
            let op = ops[i]
            let aim = Int.random(in: 0..<(op.mode == 2 ? 3 : 4), using: &rng)
            spinUntil {
                switch aim {
                case 1: op.state != .initialized
                case 2: op.state >= .executing
                case 3: op.state == .finished
                default: true
                }
            }
            for _ in 0..<Int.random(in: 0..<400, using: &rng) { _ = go.load(ordering: .relaxed) }
            op.cancel()
        }
        starter.join()
        #expect(Wait.until(seconds: 20) { ops.allSatisfy(\.isFinished) })
        var seen: [String: Int] = [:]
        for (op, log) in zip(ops, logs) {
            let events = log.all.filter { !["start", "cancelWinner", "cancelLoser", "cancelScheduled"].contains($0) }
            let startOnLoop = events.firstIndex { $0.hasPrefix("startOnLoop") }
            let cancelOnLoop = events.firstIndex { $0.hasPrefix("cancelOnLoop") }
            let finish = events.firstIndex(of: "finish")
            // 3: a finish always comes from the loop, after start on loop.
            #expect(startOnLoop != nil && finish != nil && startOnLoop! < finish!, "\(events)")
            // 6: cancel on loop never comes before start on loop.
            if let cancelOnLoop { #expect(startOnLoop! < cancelOnLoop, "\(events)") }
            // 7: cancel on loop cancels only an operation that start on loop let execute.
            if events.contains("cancelOnLoopCancel") {
                #expect(
                    events.firstIndex(of: "execute").map { $0 < events.firstIndex(of: "cancelOnLoopCancel")! } == true
                )
            }
            #expect(events.filter { $0 == "finish" }.count == 1)
            if !op.didExecute { #expect(op.operationError == .cancelled) }
            seen[events.joined(separator: ","), default: 0] += 1
        }
        // Which of the possible orderings the race produced varies by run; log them for the record.
        for (pattern, n) in seen.sorted(by: { $0.value > $1.value }) {
            print("ordering race: \(n) × \(pattern)")
        }
    }
}

/// For the race: finishes at once (mode 0), on the next loop turn (mode 1), or only by being
/// cancelled (mode 2).
private final class RaceOperation: LoopOperation, @unchecked Sendable {  // @unchecked: `mode` is immutable.
    let mode: Int
    init(loop: any LoopScheduler, log: Log<String>, mode: Int) {
        self.mode = mode
        super.init(loop: loop)
        _testsOnlyHooks = _OperationTestHooks(trace: { log.append($0.rawValue) })
    }

    override func execute() {
        switch mode {
        case 0: finish()
        case 1: loop.perform { if self.state == .executing { self.finish() } }
        default: break
        }
    }
}
