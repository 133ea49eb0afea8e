import AccessoryTestSupport
import ControlProtocol
import Testing

@testable import AccessoryCore

/// An accessory's request path on virtual time (``VirtualAccessory``): every step at its exact
/// instant, with a fake device and no pty, so each runs in well under a millisecond of real time.
@Suite("request path on virtual time")
struct RequestPathTests {
    @Test("a transact writes its framed payload and is answered with the device's frame")
    func transactAnswered() throws {
        let v = try VirtualAccessory()
        #expect(v.accessory.state == .ready)
        let (id, _) = v.transact("hello")
        #expect(v.device.writtenTexts == ["hello\n"])
        #expect(v.answer(id) == nil)
        v.device.answer("hel")
        #expect(v.answer(id) == nil)
        v.device.answer("lo\n")
        #expect(frameTexts(v.answer(id)?.value) == ["hello"])
        #expect(v.counters.requestsOK == 1 && v.counters.framesOut == 1 && v.counters.framesIn == 1)
    }

    @Test("a transact times out at its deadline exactly; its late answer is discarded, never handed to the next")
    func timeoutThenLateAnswer() throws {
        let v = try VirtualAccessory()
        let (first, _) = v.transact("a")
        v.advance(ms: 999)
        #expect(v.answer(first) == nil)
        v.advance(ms: 1)
        #expect(v.answer(first)?.errorCode == .timedOut)
        // The next request waits while the late window is open: nothing is written for it.
        let (second, _) = v.transact("b")
        #expect(v.device.writtenTexts == ["a\n"])
        v.device.answer("a\n")  // late: discarded by the resync
        #expect(v.counters.resyncDiscardedFrames == 1)
        #expect(v.answer(second) == nil)
        // Then the line settles (50 ms by default) before "b" goes out.
        v.advance(ms: 49)
        #expect(v.device.writtenTexts == ["a\n"])
        v.advance(ms: 1)
        #expect(v.device.writtenTexts == ["a\n", "b\n"])
        v.device.answer("b\n")
        #expect(frameTexts(v.answer(second)?.value) == ["b"])
        #expect(v.counters.requestsTimedOut == 1 && v.counters.requestsOK == 1)
    }

    @Test("with no late answer, the late window ends at the timeout's length (1 s), then the line settles")
    func lateWindowRunsOut() throws {
        let v = try VirtualAccessory()
        let (first, _) = v.transact("a")
        v.advance(ms: 1000)
        #expect(v.answer(first)?.errorCode == .timedOut)
        let (second, _) = v.transact("b")
        v.advance(ms: 1049)
        #expect(v.device.writtenTexts == ["a\n"])
        #expect(v.accessory.reportedState == .resyncing)
        v.advance(ms: 1)
        #expect(v.device.writtenTexts == ["a\n", "b\n"])
        v.device.answer("b\n")
        #expect(frameTexts(v.answer(second)?.value) == ["b"])
    }

    @Test("cancel mid-write: a write the device has not taken yet is answered cancelled once, and the line settles")
    func cancelMidWrite() throws {
        let v = try VirtualAccessory()
        v.device.drainsAtOnce = false
        let (id, op) = v.submit(.write(Array("payload".utf8)))
        #expect(v.device.writtenTexts == ["payload\n"])
        #expect(v.answer(id) == nil)  // a write is done when its bytes have left the daemon
        op.cancel()
        v.loop.run()
        #expect(v.answer(id)?.errorCode == .cancelled)
        v.device.drain()  // the bytes leave after all: no second answer
        v.loop.run()
        #expect(v.client.duplicates == 0)
        #expect(v.counters.requestsCancelled == 1)
        let (next, _) = v.transact("x")
        v.advance(ms: 49)
        #expect(v.device.writtenTexts == ["payload\n"])
        v.advance(ms: 1)
        #expect(v.device.writtenTexts == ["payload\n", "x\n"])
        v.device.answer("x\n")
        #expect(frameTexts(v.answer(next)?.value) == ["x"])
    }

    @Test(
        "unplug mid-request: the request fails `device removed`; the accessory reopens after its back-off and settles"
    )
    func unplugMidRequest() throws {
        let v = try VirtualAccessory()
        let (id, _) = v.transact("a")
        v.device.hangUp()
        v.loop.run()
        #expect(v.answer(id)?.errorCode == .deviceRemoved)
        #expect(v.accessory.state == .absent)
        #expect(v.counters.removals == 1)
        v.advance(ms: 99)
        #expect(v.opener.opened.count == 1)
        v.advance(ms: 1)  // reconnect.initial_ms
        #expect(v.opener.opened.count == 2)
        #expect(v.accessory.state == .opening)  // settling: the device was reset
        v.device.answer("boot banner\n")  // what it says as it comes up is discarded
        v.advance(ms: 49)
        #expect(v.accessory.state == .opening)
        v.advance(ms: 50)
        #expect(v.accessory.state == .ready)
        let (next, _) = v.transact("b")
        #expect(v.device.writtenTexts == ["b\n"])
        v.device.answer("b\n")
        #expect(frameTexts(v.answer(next)?.value) == ["b"])
        // After the first open's two ("opening", "ready"):
        #expect(
            Array(v.announced.dropFirst(2)) == [
                "absent (removed: the device closed the connection (end of file))",
                "opening (/dev/virtual-echo)",
                "opening (/dev/virtual-echo: settling)",
                "ready (/dev/virtual-echo)",
            ]
        )
    }

    @Test(
        "after_reopen: late_answer: a device hot-plug removed mid-transact and put back discards that answer until its old deadline"
    )
    func lateAnswerAfterReopen() throws {
        let v = try VirtualAccessory("resync: {after_reopen: late_answer}")
        let (id, _) = v.transact("a")
        v.advance(ms: 10)
        v.accessory.deviceDisappeared("udev: removed")
        v.loop.run()
        #expect(v.answer(id)?.errorCode == .deviceRemoved)
        v.accessory.deviceAppeared()
        v.loop.run()
        #expect(v.opener.opened.count == 2)
        #expect(v.accessory.stateReason.contains("discarding the answer"))
        v.device.answer("a\n")  // the old request's answer, after the reopen
        #expect(v.counters.resyncDiscardedFrames == 1)
        #expect(v.counters.unsolicitedFrames == 0)
        v.advance(ms: 50)
        #expect(v.accessory.state == .ready)
        let (next, _) = v.transact("b")
        v.device.answer("b\n")
        #expect(frameTexts(v.answer(next)?.value) == ["b"])
    }

    @Test("a device that cannot be opened is absent and tried again after its back-off")
    func openFailureBacksOff() throws {
        let v = try VirtualAccessory()
        v.device.hangUp()
        v.opener.failWith = .notFound(path: "/dev/virtual-echo")
        v.loop.run()
        v.advance(ms: 100)
        #expect(v.accessory.state == .absent)
        #expect(v.accessory.stateReason.contains("/dev/virtual-echo"))
        v.opener.failWith = nil
        v.advance(ms: 100)
        #expect(v.opener.opened.count == 2)
        v.advance(ms: 50)
        #expect(v.accessory.state == .ready)
    }
}

/// The link's transition table, written once in ``AccessoryLinkState/canMove(to:)``.
@Suite("accessory link states")
struct AccessoryLinkStateTests {
    @Test("legal and illegal moves")
    func table() {
        let closed = AccessoryLinkState.closed(.absent, reason: "", removal: nil)
        let opening = AccessoryLinkState.opening(reason: "", removal: nil, connector: nil)
        let shutDown = AccessoryLinkState.shutDown(reason: "")
        #expect(closed.canMove(to: .opening) && closed.canMove(to: .closed) && closed.canMove(to: .shutDown))
        #expect(!closed.canMove(to: .ready) && !closed.canMove(to: .settling))
        #expect(opening.canMove(to: .ready) && opening.canMove(to: .settling) && opening.canMove(to: .closed))
        for next: AccessoryLinkState.Kind in [.closed, .opening, .settling, .ready, .shutDown] {
            #expect(!shutDown.canMove(to: next), "shut down → \(next)")
        }
    }

    @Test("what clients are told of each state")
    func reportedStates() {
        #expect(AccessoryLinkState.closed(.failed, reason: "r", removal: nil).deviceState == .failed)
        #expect(AccessoryLinkState.opening(reason: "r", removal: nil, connector: nil).deviceState == .opening)
        #expect(AccessoryLinkState.shutDown(reason: "r").deviceState == .disabled)
    }
}
