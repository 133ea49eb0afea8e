import AccessoryTestSupport
import Glibc
import SystemCalls
import Testing

@testable import AccessoryCore

/// SET-CONTROL's flow-control values through an rfc2217 listener: the inbound ones are applied
/// (one termios setting covers both directions), and DCD, DTR and DSR flow control, which Linux
/// cannot do, are answered with the setting in force. The accessory's termios shows each.
///
/// Threading: the test's thread; the registry runs on its own loop thread (``CoreHarness``).
@Suite struct NetworkFlowControlTests {
    private static let setControl: UInt8 = 5

    /// The flow control the accessory's descriptor has now: `none`, `xonxoff` or `rtscts`.
    private static func lineFlow(_ h: CoreHarness) -> String? {
        let registry = h.registry
        return Wait.onLoop(h.loop) { () -> String? in
            guard let fd = registry.accessory(named: "echo")?.port?.channel.fileDescriptor,
                let t = try? Termios.get(fd)
            else { return nil }
            if t.c_cflag & Termios.crtscts != 0 { return "rtscts" }
            return t.c_iflag & UInt32(IXON | IXOFF) == UInt32(IXON | IXOFF) ? "xonxoff" : "none"
        } ?? nil
    }

    /// Whether the accessory's flow control becomes `flow` within five seconds (a setting reaches
    /// the line once the client's session runs).
    private static func flowBecomes(_ h: CoreHarness, _ flow: String) -> Bool {
        for _ in 0..<250 {
            if lineFlow(h) == flow { return true }
            usleep(20_000)
        }
        return false
    }

    @Test("inbound flow control applied; DCD, DTR and DSR flow control answered with the setting in force")
    func flowControlVariants() throws {
        let (h, port) = try TelnetTestClient.harness()
        #expect(h.waitReady("echo"))
        let client = try TelnetTestClient(port: port)
        try client.send(Self.setControl, 13)
        #expect(client.waitFor(Self.setControl, 14), "inbound: none at first: \(client.bytes)")

        try client.send(Self.setControl, 15)  // Inbound XON/XOFF.
        #expect(client.waitFor(Self.setControl, 15), "\(client.bytes)")
        #expect(Self.flowBecomes(h, "xonxoff"))
        try client.send(Self.setControl, 17)  // DCD flow control (outbound): XON/XOFF is in force.
        #expect(client.waitFor(Self.setControl, 2), "\(client.bytes)")
        try client.send(Self.setControl, 18)  // DTR flow control (inbound).
        #expect(client.waitFor(Self.setControl, 15), "\(client.bytes)")
        try client.send(Self.setControl, 19)  // DSR flow control (outbound).
        #expect(client.waitFor(Self.setControl, 2), "\(client.bytes)")
        #expect(Self.lineFlow(h) == "xonxoff", "the variants Linux cannot do change nothing")

        try client.send(Self.setControl, 16)  // Inbound hardware.
        #expect(client.waitFor(Self.setControl, 16), "\(client.bytes)")
        #expect(Self.flowBecomes(h, "rtscts"))
        try client.send(Self.setControl, 0)  // The outbound query: the same setting.
        #expect(client.waitFor(Self.setControl, 3), "\(client.bytes)")

        try client.send(Self.setControl, 14)  // Inbound none.
        #expect(client.waitFor(Self.setControl, 14), "\(client.bytes)")
        #expect(Self.flowBecomes(h, "none"))
    }
}
