import ControlProtocol
import Glibc
import Testing

/// Connection slots against the built daemon, with hostile users through `setpriv`: four uids
/// taking every ordinary slot leave root the reserve, from which it sees and disconnects them;
/// connections that never complete a request line are closed at the timeout, counted and
/// logged, while a silent client that completed a request (a subscriber) is left alone.
///
/// Threading: the test's thread; it owns the daemon, the simulator and the attacker children.
@Suite struct ConnectionSlotTests {
    static let attackers: [UInt32] = [65531, 65532, 65533, 65534]

    @Test(.enabled(if: PermissionTests.unavailableReason == nil, "\(PermissionTests.unavailableReason ?? "")"))
    func fourUsersTakingEverySlotLeaveRootTheReserve() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        // Small numbers, the same shape as the defaults (4 × 64 = 256 = max_clients).
        try s.startDaemon(
            limits: [("max_clients", 16), ("max_connections_per_uid", 4), ("reserved_connections", 2)],
            accessories: [s.lineAccessory("echo", "access: {users: [0]}")]
        )
        var children: [ChildRun] = []
        defer { for child in children { child.kill() } }
        for uid in Self.attackers {
            // Each completes one request, so the first-request timeout does not free its slots.
            let child = try HostileClients.start(s, uid: uid, mode: "request", count: 4, label: "uid\(uid)")
            children.append(child)
            let ready = HostileClients.waitUntilReady(child)
            #expect(ready?.held == 4, "uid \(uid): \(child.stdout) \(child.stderr)")
        }
        // Every ordinary slot is taken: a fifth user is refused.
        let late = try HostileClients.start(s, uid: 65530, mode: "request", count: 1, label: "late")
        children.append(late)
        _ = HostileClients.waitUntilReady(late)
        let admin = try s.connect()
        let status = try admin.result("daemon.status")
        #expect(status["clients"]?.int64Value == 17, "\(status)")
        #expect(status["clients_accepted_in_reserve"]?.int64Value == 1, "\(status)")
        // The reserve is for root and the daemon's user only: a second root connection takes
        // its last place, a third is refused.
        let second = try s.connect()
        #expect(try second.result("daemon.status")["clients_accepted_in_reserve"]?.int64Value == 2)
        let third = try s.connect()
        let refused = try third.nextResponse(seconds: 5)
        #expect(refused.code == -32000, "\(refused)")
        #expect(s.log.contains("in the reserve kept for root"), "\(s.log)")
        // Root sees who holds the slots and disconnects one of them.
        let clients = try admin.result("clients.list")["clients"]?.arrayValue ?? []
        #expect(clients.filter { $0["uid"]?.int64Value == 65534 }.count == 4, "\(clients)")
        let victim = try #require(clients.first { $0["uid"]?.int64Value == 65534 })
        _ = try admin.result("client.disconnect", .object(["id": try #require(victim["id"])]))
        #expect(try admin.call("transact", Params.transfer("echo", "served")).frameTexts == ["served"])
        admin.close()
        second.close()
        third.close()
    }

    @Test(.enabled(if: PermissionTests.unavailableReason == nil, "\(PermissionTests.unavailableReason ?? "")"))
    func connectionsThatNeverCompleteARequestAreClosedButASilentSubscriberStays() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(
            limits: [("idle_connection_timeout_ms", 500)],
            accessories: [s.lineAccessory("echo")]
        )
        let subscriber = try s.connect()
        _ = try subscriber.result("subscribe", Params.device("echo"))
        let idle = try HostileClients.start(s, uid: 65534, mode: "idle", count: 10, label: "idle")
        let partial = try HostileClients.start(s, uid: 65533, mode: "partial", count: 5, label: "partial")
        defer {
            idle.kill()
            partial.kill()
        }
        #expect(HostileClients.waitUntilReady(idle)?.held == 10)
        #expect(HostileClients.waitUntilReady(partial)?.held == 5)
        let admin = try s.connect()
        _ = try admin.result("daemon.status")  // a request: the admin is not idle either
        let deadline = Deadline(seconds: 20)
        var status = try admin.result("daemon.status")
        while status["clients_timed_out"]?.int64Value ?? 0 < 15 && !deadline.hasPassed {
            usleep(50_000)
            status = try admin.result("daemon.status")
        }
        #expect(status["clients_timed_out"]?.int64Value == 15, "\(status)")
        #expect(status["clients"]?.int64Value == 2, "\(status)")
        #expect(s.log.contains("limits.idle_connection_timeout_ms"), "\(s.log)")
        // The subscriber, silent far longer than the timeout, still gets the accessory's data.
        #expect(try admin.call("write", Params.transfer("echo", "to the subscriber")).error == nil)
        let note = try subscriber.notification(seconds: 5) { $0.method == "device.data" }
        #expect(note.params["device"] == "echo", "\(note)")
        admin.close()
        subscriber.close()
    }
}
