import AccessoryTestSupport
import IOLoop
import SystemCalls
import Testing
import Transports

/// The serial stream path on real ptys: partial writes, EAGAIN, injected faults, unplugging.
@Suite struct SerialStreamTests {
    /// A SerialPort on a pty slave; the test plays the device on the master.
    final class Fixture {
        let loop: IOLoop
        let pty: TestPty
        let port: SerialPort
        var received: [UInt8] = []
        var gone: [GoneReason] = []
        var drained = 0

        init(maxOutboundBytes: Int = 1 << 20) throws {
            loop = try IOLoop.forCurrentThread()
            pty = try TestPty()
            port = try SerialPort.open(
                path: pty.slavePath,
                settings: SerialSettings(baudRate: 115_200),
                on: loop,
                maxOutboundBytes: maxOutboundBytes
            )
            port.channel.onBytes = { [unowned self] in received += $0 }
            port.channel.onGone = { [unowned self] in gone.append($0) }
            port.channel.onDrained = { [unowned self] in drained += 1 }
        }

        var channel: StreamChannel { port.channel }
        var fd: CInt { channel.fileDescriptor ?? -1 }

        /// Reads the master while running the loop until `count` bytes came out (bounded).
        func collectFromMaster(_ count: Int, seconds: Double = 10) -> [UInt8] {
            var out: [UInt8] = []
            let deadline = loop.now + .milliseconds(Int64(seconds * 1000))
            while out.count < count && loop.now < deadline {
                out += drainAvailable(pty.masterFD)
                if out.count < count { spin(loop, for: .milliseconds(1)) }
            }
            return out
        }

        func shutdown() {
            port.close()
            loop.shutdown()
        }
    }

    @Test func fillingThePtyQueuesAndEverythingArrivesInOrder() throws {
        let f = try Fixture()
        defer { f.shutdown() }
        var rng = SplitMix64(seed: 1)
        let payload = rng.bytes(512 * 1024)
        try f.channel.write(payload)
        // The pty holds a few KiB: the kernel took part of it (a short write), then EAGAIN.
        #expect(f.channel.queuedOutboundBytes > 0)
        #expect(f.channel.queuedOutboundBytes < payload.count)
        let out = f.collectFromMaster(payload.count)
        #expect(out.count == payload.count)
        #expect(out == payload)
        #expect(spin(f.loop) { f.drained == 1 })
        #expect(f.gone.isEmpty)
    }

    @Test func manyWritesWhileBlockedStayInOrder() throws {
        let f = try Fixture()
        defer { f.shutdown() }
        var expected: [UInt8] = []
        for i in 0..<2000 {
            let chunk = [UInt8](repeating: UInt8(i % 251), count: 1 + i % 97)
            expected += chunk
            try f.channel.write(chunk)
        }
        #expect(f.collectFromMaster(expected.count) == expected)
    }

    @Test func injectedShortWritesStillDeliverEverything() throws {
        let f = try Fixture()
        defer { f.shutdown() }
        let fd = f.fd
        let shortened = Counter()
        let token = FaultInjection.install { name, target in
            guard target == fd, name == .write else { return nil }
            shortened.increment()
            return .limit(7)
        }
        defer { FaultInjection.remove(token) }
        var rng = SplitMix64(seed: 2)
        let payload = rng.bytes(10_000)
        try f.channel.write(payload)
        #expect(f.collectFromMaster(payload.count) == payload)
        #expect(shortened.value >= payload.count / 7)
    }

    @Test func injectedEINTRAndEAGAINOnAPty() throws {
        let f = try Fixture()
        defer { f.shutdown() }
        let fd = f.fd
        let hits = Counter()
        let token = FaultInjection.install { name, target in
            guard target == fd else { return nil }
            switch hits.increment() {
            case 1...4: return .error(.interrupted)
            case 5...6 where name == .write: return .error(.resourceTemporarilyUnavailable)
            default: return nil
            }
        }
        defer { FaultInjection.remove(token) }
        try f.channel.write(Array("AT\r".utf8))
        _ = try FileIO.write(f.pty.masterFD, Array("OK\r\n".utf8))
        #expect(f.collectFromMaster(3) == Array("AT\r".utf8))
        #expect(spin(f.loop) { f.received.count == 4 })
        #expect(f.received == Array("OK\r\n".utf8))
        #expect(f.gone.isEmpty)
    }

    @Test func injectedEIOOnAPtyReadIsGone() throws {
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
        _ = try FileIO.write(f.pty.masterFD, [0x41])
        #expect(spin(f.loop) { !f.gone.isEmpty })
        spin(f.loop, for: .milliseconds(30))
        #expect(f.gone == [.failed(SyscallError(.read, .ioError))])
    }

    @Test(arguments: [false, true])
    func unplugMidReadIsOneGoneEventAndNoBusyLoop(bytesPending: Bool) throws {
        let f = try Fixture()
        defer { f.shutdown() }
        _ = try FileIO.write(f.pty.masterFD, Array("first".utf8))
        #expect(spin(f.loop) { f.received.count == 5 })
        if bytesPending {
            // Bytes the port has not read yet when the cable goes (the kernel drops them).
            _ = try FileIO.write(f.pty.masterFD, [1, 2, 3, 4])
            f.pty.master.close()
        } else {
            // The loop is waiting for input when the master closes from a timer.
            f.loop.scheduleTimer(after: .milliseconds(20)) { f.pty.master.close() }
        }
        #expect(spin(f.loop) { !f.gone.isEmpty })
        let counter = IterationCounter(f.loop)
        spin(f.loop, for: .milliseconds(300))
        #expect(f.gone.count == 1)
        #expect(
            f.gone.first == .endOfFile || f.gone.first == .hangup
                || f.gone.first == .failed(SyscallError(.read, .ioError))
        )
        #expect(counter.count <= 5, "the loop must sleep once the device is gone (\(counter.count) iterations)")
        #expect(f.channel.fileDescriptor == nil)
        #expect(throws: TransportError.closed) { try f.channel.write([1]) }
    }

    @Test func unplugMidWriteIsOneGoneEventAndDropsTheQueue() throws {
        let f = try Fixture()
        defer { f.shutdown() }
        try f.channel.write([UInt8](repeating: 0x55, count: 512 * 1024))
        #expect(f.channel.queuedOutboundBytes > 0, "the port is waiting for write readiness")
        f.loop.scheduleTimer(after: .milliseconds(20)) { f.pty.master.close() }
        #expect(spin(f.loop) { !f.gone.isEmpty })
        let counter = IterationCounter(f.loop)
        spin(f.loop, for: .milliseconds(300))
        #expect(f.gone.count == 1)
        #expect(f.channel.queuedOutboundBytes == 0)
        #expect(f.drained == 0)
        #expect(counter.count <= 5, "\(counter.count) iterations after the unplug")
    }
}
