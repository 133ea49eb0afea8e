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
        // Cancelled and kept (not nil): nothing re-arms it, so only the watch can see an open.
        let stopped = Wait.onLoop(h.core.loop) { () -> Bool in
            guard let timer = r.views.pollTimer else { return false }
            timer.cancel()
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
