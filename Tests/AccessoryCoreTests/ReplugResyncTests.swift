import AccessoryConfig
import AccessorySimulator
import AccessoryTestSupport
import ControlProtocol
import Glibc
import Hotplug
import IOLoop
import Testing

@testable import AccessoryCore

/// A replugged device is a new device: a reopen after a removal settles only, whatever was in
/// flight, unless `resync.after_reopen: late_answer` asks for today's wait for the interrupted
/// request's answer (a transport whose removal is not a reset).
@Suite("replug resync")
struct ReplugResyncTests {
    /// A mute device (it never answers) found by udev identity, with a 10 s request timeout.
    static func harness(afterReopen: String?, timeoutMs: Int) throws -> CoreHarness {
        var mute = SimulatorConfiguration(name: "dongle")
        mute.faults.dropEvery = 1
        let resync = afterReopen.map { ", resync: {after_reopen: \($0)}" } ?? ""
        return try CoreHarness(
            sims: ["dongle": mute],
            yaml: """
                accessories:
                  - {name: dongle, match: {vendor_id: "1a86", serial: "A1"}, response: {timeout_ms: \(timeoutMs)}\(resync)}
                """
        )
    }

    static func dongle(_ h: CoreHarness) -> DeviceIdentity {
        DeviceIdentity(properties: [
            "ACTION": "add", "SUBSYSTEM": "tty", "DEVPATH": "/devices/usb1/1-1/ttyUSB0",
            "DEVNAME": "\(h.dir)/dongle", "ID_VENDOR_ID": "1a86", "ID_SERIAL_SHORT": "A1",
        ])
    }

    func send(_ h: CoreHarness, _ event: HotplugEvent) {
        let r = h.registry
        _ = Wait.onLoop(h.loop) { r.hotplug(event) }
    }

    /// Plugs the dongle, starts a transact it never answers, unplugs it, plugs it back; returns
    /// the seconds from the replug to `ready` (nil if not ready within `seconds`).
    func replugWithARequestInFlight(_ h: CoreHarness, readyWithin seconds: Double) -> Double? {
        let dongle = Self.dongle(h)
        send(h, .added(dongle))
        #expect(h.waitReady("dongle", seconds: 2))
        let c = RecordingOrigin(clientID: 1)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"dongle","data":"hi"}}"#, from: c)
        #expect(Wait.until(seconds: 2) { Wait.onLoop(h.loop) { [r = h.registry] in r.inflightCount } == 1 })
        // Executing: its frame is out, its answer owed for 10 s.
        #expect(
            Wait.until(seconds: 2) {
                Wait.onLoop(h.loop) { [r = h.registry] in r.accessory(named: "dongle")?.counters.framesOut } == 1
            }
        )
        send(h, .removed(dongle))
        #expect(c.response(1)?.errorCode == .deviceRemoved)
        #expect(h.state("dongle") == .absent)
        let replugged = MonotonicNow.seconds()
        send(h, .added(dongle))
        guard Wait.until(seconds: seconds, { h.state("dongle") == .ready }) else { return nil }
        return MonotonicNow.seconds() - replugged
    }

    @Test("by default, ready about a settle time after the replug, not at the interrupted request's deadline")
    func replugIsReadyAtOnce() throws {
        let h = try Self.harness(afterReopen: nil, timeoutMs: 10_000)
        let ready = try #require(replugWithARequestInFlight(h, readyWithin: 5))
        // The settle time is 50 ms; the loose bound keeps a loaded machine from failing the test.
        #expect(ready < 0.5, "ready \(ready) s after the replug")
        print("replug to ready: \(Int(ready * 1000)) ms")
    }

    @Test("after_reopen: late_answer waits for the interrupted request's answer until its deadline")
    func lateAnswerOptionWaits() throws {
        let h = try Self.harness(afterReopen: "late_answer", timeoutMs: 1_500)
        let ready = try #require(replugWithARequestInFlight(h, readyWithin: 5))
        #expect(ready > 1.0, "ready \(ready) s after the replug, before the old deadline")
    }
}
