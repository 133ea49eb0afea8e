import AccessoryTestSupport
import IOLoop
import Testing

@testable import AccessoryCore

/// The views' fallback poll on virtual time: when it looks, that it runs once however often it
/// is started, and that it stops when nothing is left to look at.
@Suite("pty views: the fallback poll")
struct ViewPollTests {
    /// Test thread only.
    final class Fixture {
        let loop = EmbeddedLoop()
        let poll: ViewPoll
        let start: LoopInstant
        /// When the poll looked, in ms from the start.
        var looks: [Int64] = []
        /// What the look answers: whether anything is left to look at.
        var viewsLeft = true

        init() {
            poll = ViewPoll(scheduler: loop, interval: .milliseconds(200))
            start = loop.now
        }

        func startPoll() {
            poll.start { [unowned self] in
                looks.append(Int64(((loop.now - start) / .milliseconds(1)).rounded()))
                return viewsLeft
            }
        }
    }

    @Test("looks every interval from its start, not before; a second start changes nothing")
    func looksEveryInterval() {
        let f = Fixture()
        f.startPoll()
        f.loop.advanceTime(by: .milliseconds(199))
        #expect(f.looks.isEmpty)
        f.loop.advanceTime(by: .milliseconds(1))
        #expect(f.looks == [200])
        f.loop.advanceTime(by: .milliseconds(100))
        f.startPoll()  // as a reload that keeps views does
        f.loop.advanceTime(by: .milliseconds(300))
        #expect(f.looks == [200, 400, 600], "one poll, on its own schedule")
        f.poll.stop()
        f.loop.advanceTime(by: .seconds(1))
        #expect(f.looks == [200, 400, 600] && !f.poll.isRunning)
        #expect(f.loop.nextTimerDeadline == nil)
    }

    @Test("stops by itself when nothing is left to look at; starts again afresh")
    func stopsWhenNoViewsAreLeft() {
        let f = Fixture()
        f.startPoll()
        f.loop.advanceTime(by: .milliseconds(200))
        f.viewsLeft = false
        f.loop.advanceTime(by: .milliseconds(200))
        #expect(f.looks == [200, 400] && !f.poll.isRunning)
        #expect(f.loop.nextTimerDeadline == nil, "no timer left")
        f.viewsLeft = true
        f.startPoll()
        f.loop.advanceTime(by: .milliseconds(200))
        #expect(f.looks == [200, 400, 600], "an interval from the new start")
    }
}
