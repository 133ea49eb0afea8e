import AccessoryTestSupport
import IOLoop
import SystemCalls
import Testing
import Transports

/// The serial write and read paths on a real pty under the faults the reliability tests list (Tests/RELIABILITY.md): every write
/// first refused with `EAGAIN` and then moving a single byte, and every system call interrupted.
@Suite struct SerialFaultTests {
    typealias Fixture = SerialStreamTests.Fixture

    @Test func everyWriteRefusedThenOneByteStillDeliversEverythingInOrder() throws {
        let f = try Fixture()
        defer { f.shutdown() }
        let fd = f.fd
        let refuse = EveryCallFault(.error(.resourceTemporarilyUnavailable)) { name, target in
            target == fd && name == .write
        }
        let refusal = refuse.install()
        defer { FaultInjection.remove(refusal) }
        let oneByte = FaultInjection.install { name, target in target == fd && name == .write ? .limit(1) : nil }
        defer { FaultInjection.remove(oneByte) }

        // Several writes queued behind each other while every write is refused first.
        var rng = SplitMix64(seed: 7)
        var expected: [UInt8] = []
        for size in [1, 300, 1, 2000, 17] {
            let chunk = rng.bytes(size)
            expected += chunk
            try f.channel.write(chunk)
        }
        #expect(f.collectFromMaster(expected.count) == expected)
        #expect(spin(f.loop) { f.drained >= 1 })
        #expect(f.channel.queuedOutboundBytes == 0)
        #expect(refuse.injected >= expected.count, "\(refuse.injected) refusals for \(expected.count) bytes")
        #expect(f.gone.isEmpty)
    }

    @Test func everySystemCallInterruptedOnceBothDirectionsStillFlow() throws {
        let f = try Fixture()
        defer { f.shutdown() }
        // Every wrapped call in the process: the port's reads and writes, the loop's epoll_wait,
        // timerfd and eventfd calls, and the test's own writes to the master.
        let eintr = EveryCallFault(.error(.interrupted)) { _, _ in true }
        let token = eintr.install()
        defer { FaultInjection.remove(token) }

        var rng = SplitMix64(seed: 8)
        let outbound = rng.bytes(3000)
        try f.channel.write(outbound)
        #expect(f.collectFromMaster(outbound.count) == outbound)
        let inbound = rng.bytes(3000)
        var offset = 0
        for _ in 0..<1000 where offset < inbound.count {
            if case .processed(let n) = try FileIO.write(f.pty.masterFD, Array(inbound[offset...].prefix(512))) {
                offset += n
            }
            spin(f.loop, for: .milliseconds(1))
        }
        #expect(offset == inbound.count)
        #expect(spin(f.loop) { f.received.count >= inbound.count })
        #expect(f.received == inbound)
        let interrupted = eintr.injectedCalls
        #expect(interrupted.isSuperset(of: [.read, .write, .epoll_wait]), "interrupted: \(interrupted)")
        #expect(f.gone.isEmpty)
    }
}
