import AccessoryTestSupport
import Glibc
import Testing

@testable import AccessoryCore

@Suite("pty views: a program's open is noticed at once", .serialized)
struct ViewOpenWatchTests {
    @Test("with the fallback poll stopped, the inotify watch alone notices each open, again after a close")
    func openSeenWithoutPoll() throws {
        let h = try PtyViewTests.harness(views: "      - {pty: {views}/x, mode: exclusive}")
        let r = h.core.registry
        // Only a reload would start it again, and none comes: only the watch can see an open.
        let stopped = Wait.onLoop(h.core.loop) { () -> Bool in
            guard r.views.poll.isRunning else { return false }
            r.views.poll.stop()
            return true
        }
        #expect(stopped == true)
        for round in 1...2 {
            let fd = try #require(h.open("x"), "open \(round) not seen")
            h.write(fd, "abc\n")
            #expect(String(decoding: h.read(fd, atLeast: 4), as: UTF8.self) == "abc\n")
            close(fd)
            #expect(Wait.until(seconds: 5) { h.status("x")?["open"]?.boolValue == false })
        }
        #expect(h.counter("x", "opens") == 2)
    }
}
