import AccessoryConfig
import AccessoryCore
import AccessorySimulator
import AccessoryTestSupport
import ControlProtocol
import IOLoop
import Testing

@Suite("configuration reload")
struct ReloadTests {
    static func yaml(echoTimeout: Int = 1000, slowSettle: Int = 50, extra: String = "") -> String {
        """
        accessories:
          - name: echo
            path: {sim:echo}
            response: {timeout_ms: \(echoTimeout)}
            reconnect: {initial_ms: 20, max_ms: 200}
          - name: slow
            path: {sim:slow}
            response: {timeout_ms: 2000}
            resync: {settle_ms: \(slowSettle)}
            reconnect: {initial_ms: 20, max_ms: 200}
        \(extra)
        """
    }

    static func harness() throws -> CoreHarness {
        var slow = SimulatorConfiguration(name: "slow")
        slow.responseDelay = .milliseconds(400)
        let h = try CoreHarness(sims: ["echo": SimulatorConfiguration(name: "echo"), "slow": slow], yaml: yaml())
        #expect(h.waitReady("echo") && h.waitReady("slow"))
        return h
    }

    func instance(_ h: CoreHarness, _ name: String) -> Accessory? {
        let r = h.registry
        return Wait.onLoop(h.loop) { r.accessory(named: name) }.flatMap { $0 }
    }

    @Test("an unchanged configuration touches nothing: same accessories, subscribers keep their events")
    func unchangedKeepsEverything() throws {
        let h = try Self.harness()
        let before = (instance(h, "echo"), instance(h, "slow"))
        let c = RecordingOrigin(clientID: 1)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"events":["state"]}}"#, from: c)
        _ = c.response(1)
        let summary = try h.reload(Self.yaml())
        #expect(summary.unchanged == ["echo", "slow"])
        #expect(summary.changed.isEmpty && summary.added.isEmpty && summary.removed.isEmpty)
        #expect(instance(h, "echo") === before.0 && instance(h, "slow") === before.1)
        #expect(c.notifications.isEmpty, "no state change was announced")
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"transact","params":{"device":"echo","data":"still"}}"#, from: c)
        #expect(frameTexts(c.response(2)?.value) == ["still"])
    }

    @Test("a changed idle accessory is replaced and ready again with the new settings; others untouched")
    func changedIdleIsReplaced() throws {
        let h = try Self.harness()
        let slowBefore = instance(h, "slow")
        let summary = try h.reload(Self.yaml(echoTimeout: 1500))
        #expect(summary.changed == ["echo"])
        #expect(summary.unchanged == ["slow"])
        #expect(instance(h, "slow") === slowBefore)
        #expect(h.waitReady("echo"))
        let c = RecordingOrigin(clientID: 1)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"device.status","params":{"device":"echo"}}"#, from: c)
        #expect(c.response(1)?.value?["settings"]?["timeout_ms"]?.int64Value == 1500)
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"transact","params":{"device":"echo","data":"new"}}"#, from: c)
        #expect(frameTexts(c.response(2)?.value) == ["new"])
    }

    @Test("added accessories open, removed ones leave devices.list and answer unknown device")
    func addedAndRemoved() throws {
        var slow = SimulatorConfiguration(name: "slow")
        slow.responseDelay = .milliseconds(400)
        let h = try CoreHarness(
            sims: [
                "echo": SimulatorConfiguration(name: "echo"), "slow": slow,
                "third": SimulatorConfiguration(name: "third"),
            ],
            yaml: Self.yaml()
        )
        #expect(h.waitReady("echo"))
        let summary = try h.reload(
            """
            accessories:
              - name: echo
                path: {sim:echo}
                response: {timeout_ms: 1000}
                reconnect: {initial_ms: 20, max_ms: 200}
              - name: third
                path: {sim:third}
            """
        )
        #expect(summary.added == ["third"])
        #expect(summary.removed == ["slow"])
        #expect(h.waitReady("third"))
        let c = RecordingOrigin(clientID: 1)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"devices.list"}"#, from: c)
        let names = c.response(1)?.value?["devices"]?.arrayValue?.compactMap { $0["name"]?.stringValue }
        #expect(names == ["echo", "third"])
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"transact","params":{"device":"slow","data":"x"}}"#, from: c)
        #expect(c.response(2)?.errorCode == .unknownDevice)
    }

    @Test("a busy accessory keeps serving what it admitted, then takes the change once idle")
    func busyIsDeferredUntilIdle() throws {
        let h = try Self.harness()
        let before = instance(h, "slow")
        let c = RecordingOrigin(clientID: 1)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"slow","data":"first"}}"#, from: c)
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"transact","params":{"device":"slow","data":"second"}}"#, from: c)
        // Both admitted (one executing, one queued) before the reload arrives.
        #expect(Wait.until(seconds: 5) { Wait.onLoop(h.loop) { [r = h.registry] in r.inflightCount } == 2 })
        let summary = try h.reload(Self.yaml(slowSettle: 80))
        #expect(summary.deferred == ["slow"])
        #expect(frameTexts(c.response(1)?.value) == ["first"])
        #expect(frameTexts(c.response(2)?.value) == ["second"])
        #expect(Wait.until(seconds: 5) { instance(h, "slow") !== before })
        #expect(h.waitReady("slow"))
        h.request(#"{"jsonrpc":"2.0","id":3,"method":"device.status","params":{"device":"slow"}}"#, from: c)
        #expect(c.response(3)?.value?["state"]?.stringValue == "ready")
        #expect(c.duplicates == 0)
    }

    @Test("a locked accessory waits for the unlock before the change applies")
    func lockDefersTheChange() throws {
        let h = try Self.harness()
        let before = instance(h, "echo")
        let holder = RecordingOrigin(clientID: 7)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"lock","params":{"device":"echo"}}"#, from: holder)
        #expect(holder.response(1)?.value?["locked"]?.boolValue == true)
        let summary = try h.reload(Self.yaml(echoTimeout: 900))
        #expect(summary.deferred == ["echo"])
        h.request(
            #"{"jsonrpc":"2.0","id":2,"method":"transact","params":{"device":"echo","data":"mine"}}"#,
            from: holder
        )
        #expect(frameTexts(holder.response(2)?.value) == ["mine"])
        #expect(instance(h, "echo") === before, "still the old accessory while locked")
        h.request(#"{"jsonrpc":"2.0","id":3,"method":"unlock","params":{"device":"echo"}}"#, from: holder)
        #expect(holder.response(3)?.value?["unlocked"]?.boolValue == true)
        #expect(Wait.until(seconds: 5) { instance(h, "echo") !== before })
        #expect(h.waitReady("echo"))
    }
}
