import AccessoryConfig
import AccessorySimulator
import AccessoryTestSupport
import ControlProtocol
import Glibc
import Hotplug
import IOLoop
import Testing

@testable import AccessoryCore

/// The registry's side of hot-plug, fed udev events directly (the netlink path is tested in
/// HotplugTests and under `unshare -rn`): identity matching opens and closes accessories, a
/// request in flight during a remove fails with 1005, two matching devices are a conflict.
@Suite("hot-plug routing")
struct HotplugRoutingTests {
    static let yaml = """
        accessories:
          - name: dongle
            match: {vendor_id: "1a86", product_id: "7523", serial: "A1"}
            response: {timeout_ms: 2000}
            # These removals are udev events only: the device is not reset and still answers the
            # request they interrupted, so the reopen must discard that answer.
            resync: {after_reopen: late_answer}
            reconnect: {initial_ms: 20, max_ms: 100}
          - name: plain
            path: {sim:plain}
            reconnect: {initial_ms: 5000, max_ms: 5000}
        """

    static func device(_ devName: String, devPath: String, serial: String = "A1", vendor: String = "1A86")
        -> DeviceIdentity
    {
        DeviceIdentity(properties: [
            "ACTION": "add", "SUBSYSTEM": "tty", "DEVPATH": devPath, "DEVNAME": devName,
            "ID_VENDOR_ID": vendor, "ID_MODEL_ID": "7523", "ID_SERIAL_SHORT": serial,
        ])
    }

    static func harness() throws -> CoreHarness {
        var slow = SimulatorConfiguration(name: "dongle")
        slow.responseDelay = .milliseconds(300)
        return try CoreHarness(
            sims: ["dongle": slow, "other": SimulatorConfiguration(name: "other"), "plain": .init(name: "plain")],
            yaml: yaml
        )
    }

    func send(_ h: CoreHarness, _ event: HotplugEvent) {
        let r = h.registry
        _ = Wait.onLoop(h.loop) { r.hotplug(event) }
    }

    func reason(_ h: CoreHarness, _ name: String) -> String {
        let r = h.registry
        return Wait.onLoop(h.loop) { r.accessory(named: name)?.stateReason ?? "" } ?? ""
    }

    @Test("add opens the matching accessory, remove closes it (in-flight request: 1005), replug reopens")
    func addRemoveReplug() throws {
        let h = try Self.harness()
        #expect(h.waitReady("plain"))
        #expect(h.state("dongle") == .absent)
        #expect(reason(h, "dongle").contains("waiting for a udev device"))
        let dongle = Self.device("\(h.dir)/dongle", devPath: "/devices/usb1/1-1/ttyUSB0")
        send(h, .added(dongle))
        #expect(h.waitReady("dongle", seconds: 2))

        let simulator = try #require(h.simulators.first { $0.configuration.name == "dongle" })
        let repliesBefore = simulator.status.totalReplies
        let c = RecordingOrigin(clientID: 1)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"dongle","data":"slow"}}"#, from: c)
        #expect(Wait.until(seconds: 2) { Wait.onLoop(h.loop) { [r = h.registry] in r.inflightCount } == 1 })
        // Its frame is out (the simulator answers after 300 ms): the remove interrupts it.
        #expect(
            Wait.until(seconds: 2) {
                Wait.onLoop(h.loop) { [r = h.registry] in r.accessory(named: "dongle")?.counters.framesOut } == 1
            }
        )
        // The simulator must have read it too, or it never answers and the reopen waits out the
        // whole late window. It counts the reply it owes as soon as it reads the request (the
        // reply itself leaves 300 ms later).
        #expect(Wait.until(seconds: 2) { simulator.status.totalReplies == repliesBefore + 1 })
        send(h, .removed(dongle))
        #expect(c.response(1)?.errorCode == .deviceRemoved)
        #expect(h.state("dongle") == .absent)
        #expect(reason(h, "dongle").contains("waiting for a udev device"), "no polling for a device udev finds")

        send(h, .added(dongle))
        #expect(h.waitReady("dongle", seconds: 2), "the same name, without a restart")
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"transact","params":{"device":"dongle","data":"back"}}"#, from: c)
        #expect(frameTexts(c.response(2)?.value) == ["back"])
    }

    @Test("a device that does not match is ignored; uninitialized devices are ignored")
    func nonMatchingIgnored() throws {
        let h = try Self.harness()
        send(h, .added(Self.device("\(h.dir)/other", devPath: "/devices/usb1/1-2/ttyUSB1", serial: "ZZ")))
        send(h, .added(Self.device("\(h.dir)/other", devPath: "/devices/usb1/1-3/ttyUSB2", vendor: "0403")))
        var raw = Self.device("\(h.dir)/dongle", devPath: "/devices/usb1/1-1/ttyUSB0")
        raw.isInitialized = false
        send(h, .added(raw))
        // `send` returns once the registry handled the event, and a match starts the open then.
        #expect(h.state("dongle") == .absent)
        // The matching device opens it: none of the three above counted as a match (one that had
        // would make two, a conflict, and it would stay closed).
        send(h, .added(Self.device("\(h.dir)/dongle", devPath: "/devices/usb1/1-5/ttyUSB4")))
        #expect(h.waitReady("dongle", seconds: 2))
        #expect(!reason(h, "dongle").contains("conflict"))
    }

    @Test("two matching devices are a conflict: not opened on either; removing one opens the other")
    func twoMatchesConflict() throws {
        let h = try Self.harness()
        let first = Self.device("\(h.dir)/dongle", devPath: "/devices/usb1/1-1/ttyUSB0")
        let second = Self.device("\(h.dir)/other", devPath: "/devices/usb1/1-4/ttyUSB3")
        send(h, .added(first))
        #expect(h.waitReady("dongle", seconds: 2))
        send(h, .added(second))
        #expect(Wait.until(seconds: 2) { h.state("dongle") == .failed })
        let why = reason(h, "dongle")
        #expect(
            why.contains("conflict: 2 devices match") && why.contains("\(h.dir)/dongle")
                && why.contains("\(h.dir)/other")
        )
        send(h, .removed(first))
        #expect(h.waitReady("dongle", seconds: 2))
        let c = RecordingOrigin(clientID: 1)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"device.status","params":{"device":"dongle"}}"#, from: c)
        #expect(c.response(1)?.value?["path"]?.stringValue == "\(h.dir)/other", "opened on the one left")
    }

    @Test("ACCESSORYD_NAME set by a udev rule names the accessory directly")
    func taggedByName() throws {
        let h = try Self.harness()
        let tagged = DeviceIdentity(properties: [
            "ACTION": "add", "SUBSYSTEM": "tty", "DEVPATH": "/devices/pci0/tty/ttyS4",
            "DEVNAME": "\(h.dir)/dongle", "ACCESSORYD_NAME": "dongle",
        ])
        send(h, .added(tagged))
        #expect(h.waitReady("dongle", seconds: 2))
    }

    @Test("a path accessory opens at once when its node or link appears, long before its back-off")
    func pathAppearedOpensNow() throws {
        let h = try Self.harness()
        #expect(h.waitReady("plain"))
        let plain = h.simulators.first { $0.configuration.name == "plain" }!
        let appearances = plain.status.appearances
        plain.hangUp(reappearAfter: .milliseconds(100))
        #expect(Wait.until(seconds: 2) { h.state("plain") != .ready })
        // Back-off is 5 s; the simulator is back after 100 ms. Only the event can open it sooner.
        #expect(Wait.until(seconds: 2) { plain.status.appearances > appearances }, "the simulator is back")
        #expect(h.state("plain") != .ready)
        let r = h.registry
        let link = "\(h.dir)/plain"
        _ = Wait.onLoop(h.loop) { r.pathAppeared(link) }
        #expect(h.waitReady("plain", seconds: 1))
    }
}

/// RFCOMM accessories reconnect with the same back-off as serial ones. Here there is no
/// Bluetooth stack: each attempt fails (`EAFNOSUPPORT`, a clear "Bluetooth unavailable" state),
/// which exercises the retry path for real.
@Suite("RFCOMM reconnect")
struct RFCOMMReconnectTests {
    @Test("a failing RFCOMM link is retried with back-off: a few attempts, never a busy loop")
    func retriedWithBackoff() throws {
        let yaml = """
            accessories:
              - name: bt
                rfcomm: {address: "00:11:22:33:44:55", channel: 1}
                reconnect: {initial_ms: 20, max_ms: 160}
            """
        let h = try CoreHarness(sims: [:], yaml: yaml)
        // Each attempt fails at once, so they come on the back-off's schedule: 20, 60, 140, 300,
        // 460 ms … Wait for the fourth failure and look, in one step on the loop, at the attempts
        // and the back-off: it has reached its cap and the next attempt is scheduled, so the
        // retries go through it (a busy loop would have made hundreds of attempts by then). The
        // exact instants are shown on virtual time in ReopenScheduleTests.
        let r = h.registry
        var seen: (attempts: UInt64, nextDelay: Duration, scheduled: Bool)?
        #expect(
            Wait.until(seconds: 5) {
                seen = Wait.onLoop(h.loop) {
                    r.accessory(named: "bt").map {
                        ($0.counters.openAttempts, $0.reopen.nextDelay, $0.reopen.isScheduled)
                    }
                }.flatMap { $0 }
                return seen.map { $0.attempts >= 4 && $0.scheduled } ?? false
            }
        )
        #expect((4...12).contains(seen?.attempts ?? 0), "\(String(describing: seen))")
        #expect(seen?.nextDelay == .milliseconds(160), "doubled from 20 ms at each failure, up to the 160 ms cap")
        let c = RecordingOrigin(clientID: 1)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"device.status","params":{"device":"bt"}}"#, from: c)
        let status = c.response(1)?.value
        #expect(status?["reason"]?.stringValue?.lowercased().contains("bluetooth") == true)
    }
}
