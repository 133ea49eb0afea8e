import AccessoryTestSupport
import Glibc
import SystemCalls
import Testing

@testable import AccessoryCore

/// The owner of a listener's connection is looked up without blocking the device loop: while the
/// kernel has not answered, the connection waits (nothing is relayed) and the loop serves others;
/// at the deadline it is refused and logged.
///
/// Threading: the test's thread; the registry runs on its own loop thread (``CoreHarness``).
@Suite struct PeerLookupTests {
    /// Whether `fd` is a netlink socket (asked of the kernel directly: a fault rule must not call
    /// the wrapped calls it stands in for).
    private static func isNetlink(_ fd: CInt) -> Bool {
        var domain: CInt = 0
        var length = socklen_t(MemoryLayout<CInt>.size)
        return getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &length) == 0 && domain == AF_NETLINK
    }

    @Test("a lookup the kernel does not answer: the loop is free meanwhile, the connection refused at the deadline")
    func unansweredLookup() throws {
        let (h, port) = try TelnetTestClient.harness()
        #expect(h.waitReady("echo"))
        let registry = h.registry
        // On the device loop: the question is "sent" without reaching the kernel, so no answer
        // comes; the deadline is long enough to look at the waiting connection.
        let token = try #require(
            Wait.onLoop(h.loop) { () -> FaultInjection.Token? in
                registry.listeners.listeners.first?.peerLookupDeadline = .seconds(2)
                let thread = ThreadID.current
                return FaultInjection.install { name, target in
                    guard name == .write, thread.isCurrent, Self.isNetlink(target) else { return nil }
                    return .answer(4096)
                }
            } ?? nil
        )
        defer { FaultInjection.remove(token) }
        let client = try TelnetTestClient(port: port)
        // The loop runs other work while the lookup waits: it is seen waiting.
        var waiting = false
        for _ in 0..<100 where !waiting {
            waiting = Wait.onLoop(h.loop) { registry.listeners.listeners.first?.lookups.count == 1 } ?? false
            if !waiting { usleep(10_000) }
        }
        #expect(waiting, "the lookup was never seen waiting: the loop was held")
        #expect(client.closedByServer(), "refused at the deadline")
        #expect(client.bytes.isEmpty, "nothing sent before the owner was known: \(client.bytes)")
        let counters = Wait.onLoop(h.loop) { registry.listeners.listeners.first?.counters }
        #expect(counters??.refusedUnknown == 1 && counters??.accepted == 0, "\(String(describing: counters))")
    }
}
