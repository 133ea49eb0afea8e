import AccessoryTestSupport
import IOLoop
import SystemCalls
import Testing
import Transports

/// StreamChannel over socketpairs: reading, writing, back-pressure, loss, fault injection.
/// (The pty cases, serial's normal habitat, are in SerialStreamTests.)
@Suite struct StreamChannelTests {
    /// A channel on one end of a socketpair, the other end kept by the test.
    final class Fixture {
        let loop: IOLoop
        let channel: StreamChannel
        let peer: FDBox
        var received: [UInt8] = []
        var gone: [GoneReason] = []
        var drained = 0

        init(maxOutboundBytes: Int = 1 << 20) throws {
            loop = try IOLoop.forCurrentThread()
            let pair = try Socket.socketPair()
            peer = FDBox(pair.second)
            channel = try StreamChannel(
                owning: pair.first,
                kind: .socket,
                on: loop,
                maxOutboundBytes: maxOutboundBytes
            )
            channel.onBytes = { [unowned self] in received += $0 }
            channel.onGone = { [unowned self] in gone.append($0) }
            channel.onDrained = { [unowned self] in drained += 1 }
        }

        var fd: CInt { channel.fileDescriptor ?? -1 }

        func shutdown() {
            channel.close()
            loop.shutdown()
        }
    }

    @Test func bytesFlowBothWays() throws {
        let f = try Fixture()
        defer { f.shutdown() }
        try f.channel.write(Array("hello".utf8))
        #expect(drainAvailable(f.peer.raw) == Array("hello".utf8))
        _ = try sendToSocket(f.peer.raw, Array("world".utf8))
        #expect(spin(f.loop) { f.received.count == 5 })
        #expect(f.received == Array("world".utf8))
        #expect(f.channel.bytesRead == 5 && f.channel.bytesWritten == 5)
    }

    @Test func peerCloseIsOneEndOfFileAndTheChannelIsClosed() throws {
        let f = try Fixture()
        defer { f.shutdown() }
        _ = try sendToSocket(f.peer.raw, [1, 2, 3])
        f.peer.close()
        #expect(spin(f.loop) { !f.gone.isEmpty })
        spin(f.loop, for: .milliseconds(50))
        #expect(f.received == [1, 2, 3], "bytes sent before the close are delivered first")
        #expect(f.gone == [.endOfFile])
        #expect(!f.channel.isOpen && f.channel.fileDescriptor == nil)
        #expect(throws: TransportError.closed) { try f.channel.write([1]) }
    }

    @Test func outboundLimitRefusesWithATypedErrorAndQueuesNothing() throws {
        let f = try Fixture(maxOutboundBytes: 1024)
        defer { f.shutdown() }
        // Fill the socket buffer; the peer does not read. Bounded: a socket buffer is < 64 MiB.
        var refused: TransportError?
        for _ in 0..<(128 * 1024) {
            do { try f.channel.write([UInt8](repeating: 7, count: 512)) } catch {
                refused = error
                break
            }
        }
        let queued = f.channel.queuedOutboundBytes
        #expect(queued > 512 && queued <= 1024)
        #expect(refused == .outboundLimitExceeded(limit: 1024, queued: queued, attempted: 512))
        #expect(refused?.description.contains("limit is 1024") == true)
        #expect(throws: TransportError.outboundLimitExceeded(limit: 1024, queued: queued, attempted: 2000)) {
            try f.channel.write([UInt8](repeating: 1, count: 2000))
        }
        #expect(f.channel.queuedOutboundBytes == queued)
        // Once the peer reads, the queue drains and onDrained fires once.
        var got = 0
        #expect(
            spin(f.loop) {
                got += drainAvailable(f.peer.raw).count
                return f.drained == 1
            }
        )
        got += drainAvailable(f.peer.raw).count
        #expect(f.channel.queuedOutboundBytes == 0)
        #expect(UInt64(got) == f.channel.bytesWritten)
    }

    @Test func injectedEINTRIsRetriedOnReadAndSend() throws {
        let f = try Fixture()
        defer { f.shutdown() }
        let fd = f.fd
        let reads = Counter()
        let sends = Counter()
        let token = FaultInjection.install { name, target in
            guard target == fd else { return nil }
            if name == .read, reads.value < 3 {
                reads.increment()
                return .error(.interrupted)
            }
            if name == .send, sends.value < 3 {
                sends.increment()
                return .error(.interrupted)
            }
            return nil
        }
        defer { FaultInjection.remove(token) }
        try f.channel.write([9, 8, 7])
        #expect(drainAvailable(f.peer.raw) == [9, 8, 7])
        _ = try sendToSocket(f.peer.raw, [4, 5])
        #expect(spin(f.loop) { f.received == [4, 5] })
        #expect(reads.value == 3 && sends.value == 3)
        #expect(f.gone.isEmpty)
    }

    @Test func injectedEAGAINQueuesThenWritesWhenWritable() throws {
        let f = try Fixture()
        defer { f.shutdown() }
        let fd = f.fd
        let refusals = Counter()
        let token = FaultInjection.install { name, target in
            guard target == fd, name == .send, refusals.value < 3 else { return nil }
            refusals.increment()
            return .error(.resourceTemporarilyUnavailable)
        }
        defer { FaultInjection.remove(token) }
        let payload = Array(0..<100).map { UInt8($0) }
        try f.channel.write(payload)
        #expect(f.channel.queuedOutboundBytes == 100)
        #expect(spin(f.loop) { f.drained == 1 })
        #expect(drainAvailable(f.peer.raw) == payload)
        #expect(refusals.value == 3)
    }

    @Test func injectedEIOOnReadIsOneGoneEvent() throws {
        let f = try Fixture()
        defer { f.shutdown() }
        let fd = f.fd
        // Once only: the fd is closed right after, and its number may be reused by a parallel test.
        let fired = Counter()
        let token = FaultInjection.install { name, target in
            guard target == fd, name == .read, fired.increment() == 1 else { return nil }
            return .error(.ioError)
        }
        defer { FaultInjection.remove(token) }
        _ = try sendToSocket(f.peer.raw, [1])
        #expect(spin(f.loop) { !f.gone.isEmpty })
        let counter = IterationCounter(f.loop)
        spin(f.loop, for: .milliseconds(100))
        #expect(f.gone == [.failed(SyscallError(.read, .ioError))])
        #expect(counter.count <= 5, "no busy loop after the device is gone (\(counter.count) iterations)")
    }

    @Test func injectedEIOOnWriteIsOneGoneEventOnALaterIteration() throws {
        let f = try Fixture()
        defer { f.shutdown() }
        let fd = f.fd
        // Once only: the fd is closed right after, and its number may be reused by a parallel test.
        let fired = Counter()
        let token = FaultInjection.install { name, target in
            guard target == fd, name == .send, fired.increment() == 1 else { return nil }
            return .error(.ioError)
        }
        defer { FaultInjection.remove(token) }
        try f.channel.write([1, 2, 3])  // not thrown: loss is reported through onGone
        #expect(f.gone.isEmpty, "never re-entered from inside write()")
        #expect(!f.channel.isOpen)
        #expect(spin(f.loop) { !f.gone.isEmpty })
        spin(f.loop, for: .milliseconds(30))
        #expect(f.gone == [.failed(SyscallError(.send, .ioError))])
        #expect(throws: TransportError.closed) { try f.channel.write([4]) }
    }

    @Test func closeSuppressesAPendingGoneEvent() throws {
        let f = try Fixture()
        defer { f.shutdown() }
        let fd = f.fd
        // Once only: the fd is closed right after, and its number may be reused by a parallel test.
        let fired = Counter()
        let token = FaultInjection.install { name, target in
            guard target == fd, name == .send, fired.increment() == 1 else { return nil }
            return .error(.brokenPipe)
        }
        defer { FaultInjection.remove(token) }
        try f.channel.write([1])
        f.channel.close()
        f.channel.close()  // idempotent
        spin(f.loop, for: .milliseconds(30))
        #expect(f.gone.isEmpty)
    }

    @Test func pausedReadingHoldsBytesButStillNoticesHangup() throws {
        let f = try Fixture()
        defer { f.shutdown() }
        f.channel.isReadingPaused = true
        _ = try sendToSocket(f.peer.raw, [1, 2, 3])
        spin(f.loop, for: .milliseconds(30))
        #expect(f.received.isEmpty)
        f.channel.isReadingPaused = false
        #expect(spin(f.loop) { f.received == [1, 2, 3] })
        f.channel.isReadingPaused = true
        _ = try sendToSocket(f.peer.raw, [4, 5])
        f.peer.close()
        #expect(spin(f.loop) { !f.gone.isEmpty })
        #expect(f.received == [1, 2, 3, 4, 5], "bytes before the hang-up are not lost")
        #expect(f.gone == [.endOfFile])
    }

    @Test func closeInsideOnBytesStopsDelivery() throws {
        let f = try Fixture()
        defer { f.shutdown() }
        var calls = 0
        f.channel.onBytes = { [channel = f.channel] _ in
            calls += 1
            channel.close()
        }
        _ = try sendToSocket(f.peer.raw, [1])
        #expect(spin(f.loop) { calls == 1 })
        _ = try? sendToSocket(f.peer.raw, [2])
        spin(f.loop, for: .milliseconds(30))
        #expect(calls == 1 && f.gone.isEmpty && !f.channel.isOpen)
    }
}
