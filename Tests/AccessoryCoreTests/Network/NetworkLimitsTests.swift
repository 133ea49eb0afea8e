import AccessoryTestSupport
import SystemCalls
import Testing

@testable import AccessoryCore

/// The network listeners' `limits:` keys are enforced at the configured value (each test sets a
/// value the default would not enforce there).
///
/// Threading: the test's thread; the registry runs on its own loop thread (``CoreHarness``).
@Suite struct NetworkLimitsTests {
    @Test("listener_max_connections: past it a connection is closed before a byte is sent")
    func listenerMaxConnections() throws {
        let (h, port) = try TelnetTestClient.harness(limits: ["listener_max_connections: 1"])
        #expect(h.waitReady("echo"))
        let first = try TelnetTestClient(port: port)
        #expect(try first.echo("hello\n"), "\(first.bytes)")
        let second = try TelnetTestClient(port: port)
        #expect(second.closedByServer())
        #expect(second.bytes.isEmpty, "refused without a word (not even the telnet negotiation): \(second.bytes)")
        let registry = h.registry
        let refused = Wait.onLoop(h.loop) { registry.listeners.listeners.first?.counters.refusedFull }
        #expect(refused == 1)
        #expect(try first.echo("still here\n"), "\(first.bytes)")
    }

    @Test("listener_outbound_bytes: a client that lets more wait unread is disconnected")
    func listenerOutboundBytes() throws {
        let (h, port) = try TelnetTestClient.harness(limits: ["listener_outbound_bytes: 4096"])
        #expect(h.waitReady("echo"))
        let client = try TelnetTestClient(port: port)
        #expect(try client.echo("hello\n"), "\(client.bytes)")
        try client.send(8)  // FLOWCONTROL-SUSPEND: the echoes wait in the daemon.
        let line = Array(String(repeating: "x", count: 63).utf8) + [0x0A]
        for _ in 0..<128 { try? client.sendRaw(line) }  // 8 KiB, echoed.
        #expect(client.closedByServer())
    }

    @Test("telnet_max_subnegotiation_bytes: a longer subnegotiation closes the connection")
    func telnetMaxSubnegotiationBytes() throws {
        let (h, port) = try TelnetTestClient.harness(limits: ["telnet_max_subnegotiation_bytes: 32"])
        #expect(h.waitReady("echo"))
        let client = try TelnetTestClient(port: port)
        func signature(_ length: Int) -> [UInt8] {
            [255, 250, 44, 0] + Array(repeating: 0x41, count: length) + [255, 240]
        }
        try client.sendRaw(signature(20))
        try client.send(6)  // NOTIFY-LINESTATE: answered, so the connection still stands.
        #expect(client.waitFor(6, 0x60), "\(client.bytes)")
        try client.sendRaw(signature(40))
        #expect(client.closedByServer())
    }
}
