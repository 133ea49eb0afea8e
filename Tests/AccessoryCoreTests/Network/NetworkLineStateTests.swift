import AccessoryTestSupport
import SystemCalls
import Testing

@testable import AccessoryCore

/// NOTIFY-LINESTATE through an rfc2217 listener: the line state read from the driver, and
/// notifications only for the bits the client's mask asks for, only when they change. A pty
/// tells no line state (`TIOCSERGETLSR` fails with `ENOTTY`), so the system-call seam answers it
/// on the accessory's descriptor, as a UART's driver would.
///
/// Threading: the test's thread; the registry runs on its own loop thread (``CoreHarness``).
@Suite struct NetworkLineStateTests {
    private static let notifyLineState: UInt8 = 6
    private static let setLineStateMask: UInt8 = 10

    @Test("the transmitter's state as the driver tells it, notified only for masked bits that change")
    func notificationsFollowTheMask() throws {
        let (h, port) = try TelnetTestClient.harness()
        #expect(h.waitReady("echo"))
        let registry = h.registry
        // TIOCSERGETLSR's answer: TIOCSER_TEMT (1) while the transmitter is empty.
        let lsr = Locked<CInt>(1)
        let token = try #require(
            Wait.onLoop(h.loop) { () -> FaultInjection.Token? in
                guard let fd = registry.accessory(named: "echo")?.port?.channel.fileDescriptor else { return nil }
                // Only the device loop's calls on that descriptor: tests run in parallel.
                let thread = ThreadID.current
                return FaultInjection.install { name, target in
                    guard name == .tiocsergetlsr, target == fd, thread.isCurrent else { return nil }
                    return .answer(lsr.withLock { $0 })
                }
            } ?? nil
        )
        defer { FaultInjection.remove(token) }
        let client = try TelnetTestClient(port: port)
        // The session runs (the mask's baseline is taken from then on).
        #expect(try client.echo("ready\n"), "\(client.bytes)")
        // Asked: both registers empty, no error.
        try client.send(Self.notifyLineState)
        #expect(client.waitFor(Self.notifyLineState, 0x60), "\(client.bytes)")

        // Mask: the shift register only. Its changes are told; the holding register's bit is not.
        try client.send(Self.setLineStateMask, 0x40)
        #expect(client.waitFor(Self.setLineStateMask, 0x40), "\(client.bytes)")
        lsr.withLock { $0 = 0 }
        #expect(client.waitFor(Self.notifyLineState, 0x00), "the transmitter busy: \(client.bytes)")
        lsr.withLock { $0 = 1 }
        #expect(client.waitFor(Self.notifyLineState, 0x40), "the transmitter empty again: \(client.bytes)")

        // Mask 0: no notification however the line changes.
        try client.send(Self.setLineStateMask, 0)
        #expect(client.waitFor(Self.setLineStateMask, 0), "\(client.bytes)")
        for value: CInt in [0, 1, 0] {
            lsr.withLock { $0 = value }
            client.listen(seconds: 0.3)
        }
        #expect(!client.heard(code: Self.notifyLineState), "a notification with mask 0: \(client.bytes)")
        // Asked, the whole state now: the holding register empty, the shift register busy.
        try client.send(Self.notifyLineState)
        #expect(client.waitFor(Self.notifyLineState, 0x20), "\(client.bytes)")
    }

    @Test("the driver's counters: each that moved since the last reading sets its event bit")
    func errorEventsFromTheCounters() {
        typealias S = ComPortLineState
        let before = Termios.InterruptCounts(received: 10)
        var now = before
        now.received = 12
        now.parityErrors = 1
        now.breaks = 1
        let status = SerialLineStatus(outputQueued: 3, transmitterEmpty: false, counts: now)
        #expect(S.byte(status, previous: before) == S.dataReady | S.parityError | S.breakDetect)
        #expect(S.byte(status, previous: now) == 0, "nothing moved; both registers busy")
        #expect(S.byte(SerialLineStatus(outputQueued: 0), previous: nil) == 0x60, "a pty: empty, no errors")
    }
}
