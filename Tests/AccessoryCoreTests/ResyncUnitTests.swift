import AccessoryTestSupport
import IOLoop
import Operations
import Testing

@testable import AccessoryCore

/// Records what a ``Resync`` asks of its accessory. Test thread only (the embedded loop's).
final class ResyncRecorder: ResyncDelegate {
    let loop: EmbeddedLoop
    let start: LoopInstant
    /// Frames that complete the late answer (the `until` pattern).
    var completes: (([UInt8]) -> Bool) = { _ in true }
    var sendSucceeds = true
    var probesSent: [Int64] = []
    var phases: [String] = []
    var discarded = 0
    var failures: [Int] = []

    init(loop: EmbeddedLoop) {
        self.loop = loop
        self.start = loop.now
    }

    var ms: Int64 { Int64((loop.now - start).milliseconds.rounded()) }

    func resyncFrameCompletesLateAnswer(_ frame: [UInt8]) -> Bool { completes(frame) }

    func resyncSendProbe() -> Bool {
        probesSent.append(ms)
        return sendSucceeds
    }

    func resyncPhaseChanged(_ resync: Resync, from old: Resync.Phase) {
        phases.append("\(ms) \(resync.phase.waitingFor)")
    }

    func resyncDiscardedFrame() { discarded += 1 }

    func resyncProbeFailed(attempt: Int, reason: String) { failures.append(attempt) }
}

/// The resync on virtual time: when each phase starts and ends, exactly.
@Suite("resync phases")
struct ResyncUnitTests {
    final class Fixture {
        let loop = EmbeddedLoop()
        let recorder: ResyncRecorder
        let resync: Resync
        var doneAt: [Int64] = []

        init(settleMs: Int = 50, probe: (expect: String, timeoutMs: Int)? = nil) {
            recorder = ResyncRecorder(loop: loop)
            resync = Resync(
                scheduler: loop,
                settle: .milliseconds(settleMs),
                probe: probe.map {
                    Resync.Probe(expect: FramePattern($0.expect)!, timeout: .milliseconds($0.timeoutMs))
                },
                delegate: recorder
            )
        }

        func start(lateMs: Int?, probe: Bool = true) {
            let until = lateMs.map { loop.now + .milliseconds($0) }
            resync.start(lateAnswerUntil: until, probe: probe) { [unowned self] in doneAt.append(recorder.ms) }
        }

        func frame(_ text: String) {
            resync.noteBytes()
            resync.discard(frame: Array(text.utf8))
        }

        func advance(ms: Int) { loop.advanceTime(by: .milliseconds(ms)) }
    }

    @Test("a mute device: the late window, then the settle time, then done")
    func muteDeviceWaitsOutTheLateWindow() {
        let f = Fixture()
        f.start(lateMs: 1000)
        #expect(f.resync.phase == .awaitingLateAnswer(until: f.recorder.start + .milliseconds(1000)))
        f.advance(ms: 999)
        #expect(f.doneAt.isEmpty)
        f.advance(ms: 100)
        #expect(f.doneAt == [1050])
        #expect(f.recorder.phases == ["0 late answer", "1000 settle", "1050 nothing"])
        #expect(!f.resync.isActive)
    }

    @Test("the late answer ends the late window at once; the settle time follows")
    func lateAnswerEndsTheWindow() {
        let f = Fixture()
        f.recorder.completes = { String(decoding: $0, as: UTF8.self) == "OK" }
        f.start(lateMs: 10_000)
        f.advance(ms: 300)
        f.frame("+CSQ: 20,0")  // part of the late answer: not its end
        f.advance(ms: 10)
        #expect(f.resync.phase.waitingFor == "late answer")
        f.frame("OK")
        f.advance(ms: 0)
        #expect(f.resync.phase == .settling(since: f.recorder.start + .milliseconds(310)))
        f.advance(ms: 100)
        #expect(f.doneAt == [360])
        #expect(f.recorder.discarded == 2)
    }

    @Test("settling waits for a quiet line, at most four settle times")
    func settleIsBoundedOnAChattyLine() {
        let f = Fixture(settleMs: 50)
        f.start(lateMs: nil)
        for _ in 0..<20 {
            f.advance(ms: 20)
            f.frame("$GPGGA")
        }
        #expect(f.doneAt == [200])
        let quiet = Fixture(settleMs: 50)
        quiet.start(lateMs: nil)
        quiet.advance(ms: 30)
        quiet.frame("noise")
        quiet.advance(ms: 200)
        #expect(quiet.doneAt == [80])
    }

    @Test("no late window, no probe, no settle time: done at once")
    func nothingToDo() {
        let f = Fixture(settleMs: 0)
        f.start(lateMs: nil)
        #expect(f.doneAt == [0])
        #expect(f.recorder.phases.isEmpty)
    }

    @Test("the probe's answer ends the resync, with no settle time after it")
    func probeProvesSync() {
        let f = Fixture(probe: ("^OK$", 500))
        f.start(lateMs: 1000)
        f.advance(ms: 1000)
        #expect(f.recorder.probesSent == [1000])
        f.advance(ms: 100)
        f.frame("late garbage")
        f.frame("OK")
        f.advance(ms: 0)
        #expect(f.doneAt == [1100])
        #expect(f.recorder.failures.isEmpty)
    }

    @Test("a failed probe is retried after a doubling back-off; every probe sent must be answered")
    func probeRetriesAndCountsAnswers() {
        let f = Fixture(probe: ("^OK$", 300))
        f.start(lateMs: nil)
        #expect(f.recorder.probesSent == [0])
        f.advance(ms: 300)  // attempt 1 times out
        #expect(f.recorder.failures == [1])
        #expect(f.resync.phase == .probeBackoff(attempt: 2, until: f.recorder.start + .milliseconds(400)))
        f.advance(ms: 100)
        #expect(f.recorder.probesSent == [0, 400])
        f.advance(ms: 300)  // attempt 2 times out at 700; the next waits 200 ms
        #expect(f.recorder.failures == [1, 2])
        f.advance(ms: 50)
        f.frame("OK")  // the first probe's late answer: the second is still owed
        f.advance(ms: 100)
        #expect(f.doneAt.isEmpty)
        #expect(f.recorder.probesSent == [0, 400])
        f.frame("OK")  // the second's: both answered, in step
        f.advance(ms: 0)
        #expect(f.doneAt == [850])
        #expect(f.recorder.probesSent == [0, 400], "no third probe once every probe was answered")
    }

    @Test("a probe that cannot be sent counts as a failure and is retried")
    func unsendableProbe() {
        let f = Fixture(probe: ("^OK$", 300))
        f.recorder.sendSucceeds = false
        f.start(lateMs: nil)
        #expect(f.recorder.failures == [1])
        f.advance(ms: 100)
        #expect(f.recorder.failures == [1, 2])
        f.recorder.sendSucceeds = true
        f.advance(ms: 200)
        #expect(f.recorder.probesSent == [0, 100, 300])
        f.frame("OK")
        f.advance(ms: 0)
        #expect(f.doneAt == [300])
    }

    @Test("without probe: true (a reopen), the configured probe is not sent")
    func reopenSettlesOnly() {
        let f = Fixture(probe: ("^OK$", 300))
        f.start(lateMs: nil, probe: false)
        f.advance(ms: 60)
        #expect(f.recorder.probesSent.isEmpty)
        #expect(f.doneAt == [50])
    }

    @Test("starting again while running ends the running resync first: its done is called")
    func restartCallsTheOldDone() {
        let f = Fixture()
        var first = 0
        f.resync.start(lateAnswerUntil: f.loop.now + .seconds(5), probe: false) { first += 1 }
        f.advance(ms: 10)
        f.start(lateMs: nil)
        #expect(first == 1)
        f.advance(ms: 10_000)
        #expect(first == 1)
        #expect(f.doneAt == [60])
    }

    @Test("cancel ends the resync at once and calls done once")
    func cancelEnds() {
        let f = Fixture()
        f.start(lateMs: 5000)
        f.advance(ms: 10)
        f.resync.cancel()
        #expect(f.doneAt == [10])
        f.advance(ms: 10_000)
        #expect(f.doneAt == [10])
        #expect(f.loop.nextTimerDeadline == nil)
    }

    // MARK: - A request's wait_ms behind the resync

    @Test("a request waiting behind the resync expires at its deadline, not before")
    func waitBehindTheResyncExpiresAtItsDeadline() {
        let f = Fixture()
        f.start(lateMs: 1000)
        let op = BlockLoopOperation(loop: f.loop) { $0() }
        var expiredAt: [Int64] = []
        f.resync.boundWait(of: op, until: f.loop.now + .milliseconds(300)) { [recorder = f.recorder] _ in
            expiredAt.append(recorder.ms)
        }
        f.advance(ms: 299)
        #expect(expiredAt.isEmpty)
        f.advance(ms: 1)
        #expect(expiredAt == [300])
        #expect(f.resync.isActive, "the resync goes on")
    }

    @Test("a request whose deadline comes after the resync ended, or that ran, does not expire")
    func waitBehindAnEndedResyncDoesNotExpire() {
        let f = Fixture()
        f.start(lateMs: 100)  // then 50 ms of settle time: done at 150
        let op = BlockLoopOperation(loop: f.loop) { $0() }
        var expired = 0
        f.resync.boundWait(of: op, until: f.loop.now + .milliseconds(200)) { _ in expired += 1 }
        let ran = BlockLoopOperation(loop: f.loop) { $0() }
        f.resync.boundWait(of: ran, until: f.loop.now + .milliseconds(10)) { _ in expired += 1 }
        ran.start()
        f.loop.run()
        #expect(ran.isFinished)
        f.advance(ms: 300)
        #expect(f.doneAt == [150])
        #expect(expired == 0)

        let idle = Fixture()
        idle.resync.boundWait(of: op, until: idle.loop.now + .milliseconds(10)) { _ in expired += 1 }
        #expect(idle.loop.nextTimerDeadline == nil, "no resync, no timer")
    }
}
