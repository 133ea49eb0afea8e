import AccessoryTestSupport
import IOLoop
import Testing
import Transports

@testable import AccessoryCore

/// The modem-line poll on virtual time: when it reads, what it reports, that it stops.
@Suite("modem-line poll")
struct LinePollTests {
    final class Fixture {
        let loop = EmbeddedLoop()
        let poll: LinePoll
        /// What the next read finds; nil: the accessory is closed.
        var lines: ModemLines? = []
        var reads = 0
        var changes: [ModemLines] = []

        init() {
            poll = LinePoll(scheduler: loop, interval: .milliseconds(50))
        }

        func start() {
            poll.start(
                read: { [unowned self] in
                    reads += 1
                    return lines
                },
                changed: { [unowned self] in changes.append($0) }
            )
        }

        func advance(ms: Int) { loop.advanceTime(by: .milliseconds(ms)) }
    }

    @Test("reads once per interval; the first reading is the baseline, then only changes are told")
    func readsAndReportsChanges() {
        let f = Fixture()
        f.start()
        f.advance(ms: 49)
        #expect(f.reads == 0)
        f.advance(ms: 1)
        #expect(f.reads == 1)
        #expect(f.changes.isEmpty, "the first reading is not a change")
        f.lines = [.cts, .ri]
        f.advance(ms: 50)
        #expect(f.reads == 2)
        #expect(f.changes == [[.cts, .ri]])
        f.advance(ms: 100)
        #expect(f.reads == 4)
        #expect(f.changes == [[.cts, .ri]], "unchanged lines are not told again")
        f.lines = [.cts]
        f.advance(ms: 50)
        #expect(f.changes == [[.cts, .ri], [.cts]])
    }

    @Test("stopped, it reads no more; started again, it takes a new baseline")
    func stopsAndRestarts() {
        let f = Fixture()
        f.start()
        f.advance(ms: 50)
        #expect(f.reads == 1 && f.poll.isPolling)
        f.poll.stop()
        #expect(!f.poll.isPolling)
        #expect(f.loop.nextTimerDeadline == nil, "no timer is left behind")
        f.advance(ms: 1000)
        #expect(f.reads == 1, "no read after stop")
        f.lines = [.dsr]
        f.start()
        f.advance(ms: 50)
        #expect(f.reads == 2)
        #expect(f.changes.isEmpty, "the lines changed while stopped: the new first reading is a baseline")
    }

    @Test("a second start while polling changes nothing: one timer, one read per interval")
    func startIsIdempotent() {
        let f = Fixture()
        f.start()
        f.advance(ms: 20)
        f.start()
        f.advance(ms: 30)
        #expect(f.reads == 1, "the running poll kept its schedule")
        f.advance(ms: 50)
        #expect(f.reads == 2)
    }

    @Test("a read that finds no lines (closed) forgets the baseline: a reopen starts afresh")
    func closedForgetsBaseline() {
        let f = Fixture()
        f.start()
        f.advance(ms: 50)
        f.lines = nil
        f.advance(ms: 50)
        #expect(f.poll.lastLines == nil)
        f.lines = [.cd]
        f.advance(ms: 50)
        #expect(f.changes.isEmpty, "the lines after a gap are a baseline, not a change")
        f.lines = []
        f.advance(ms: 50)
        #expect(f.changes == [[]])
    }
}
