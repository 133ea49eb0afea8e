import AccessoryTestSupport
import Glibc
import IOLoop
import SystemCalls
import Testing
import Transports

/// RFCOMM: the address encoding, the connect state machine over Unix-socket stand-ins, and the
/// real `EAFNOSUPPORT` of a host without Bluetooth.
@Suite struct RFCOMMTests {
    // MARK: - Addresses

    @Test func addressParsesAndEncodesLittleEndian() throws {
        let a = try BluetoothAddress(parsing: "00:1A:7D:DA:71:13")
        #expect(a.bytes == [0x00, 0x1A, 0x7D, 0xDA, 0x71, 0x13])
        #expect(a.bdaddr == [0x13, 0x71, 0xDA, 0x7D, 0x1A, 0x00])
        #expect(a.description == "00:1A:7D:DA:71:13")
        #expect(try BluetoothAddress(parsing: "aa:bb:cc:dd:ee:0f").description == "AA:BB:CC:DD:EE:0F")
        #expect(try BluetoothAddress(parsing: "01-02-03-04-05-06").bdaddr == [6, 5, 4, 3, 2, 1])
        #expect(BluetoothAddress(bytes: a.bytes) == a)
    }

    @Test(arguments: [
        "", "00:1A:7D:DA:71", "00:1A:7D:DA:71:13:00", "00:1A:7D:DA:71:1G", "001A7DDA7113", "00:1A:7D:DA:71:133",
        "+1:02:03:04:05:06", "0:01:02:03:04:05", "00:1A:7D:DA:71:", " 0:1A:7D:DA:71:13", "00:1A-7D:DA:71:13",
    ])
    func malformedAddressesAreRejected(_ text: String) {
        #expect(throws: TransportError.invalidBluetoothAddress(text)) { _ = try BluetoothAddress(parsing: text) }
    }

    @Test func channelsAreOneToThirty() throws {
        let a = try BluetoothAddress(parsing: "00:11:22:33:44:55")
        #expect(try RFCOMMEndpoint(address: a, channel: 1).channel == 1)
        #expect(try RFCOMMEndpoint(address: a, channel: 30).channel == 30)
        for bad in [0, 31, -1, 256] {
            #expect(throws: TransportError.invalidRFCOMMChannel(bad)) {
                _ = try RFCOMMEndpoint(address: a, channel: bad)
            }
        }
        #expect(TransportError.invalidRFCOMMChannel(31).description == "RFCOMM channel 31 is out of range (1–30)")
    }

    // MARK: - The real thing (no Bluetooth here)

    // A host with Bluetooth would try to connect for real; this test is about hosts without it.
    @Test(.enabled(if: hostHasNoBluetooth(), "this host has Bluetooth sockets: the test is about hosts without them"))
    func noBluetoothOnThisHostIsAClearState() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        var result: Result<StreamChannel, TransportError>?
        let c = RFCOMMConnector.connect(to: try endpoint(), on: loop) { result = $0 }
        #expect(result == nil, "never completes inside connect()")
        #expect(spin(loop) { result != nil })
        #expect(result.map(failure) == .bluetoothUnavailable)
        #expect(c.phase == .failed)
        #expect(TransportError.bluetoothUnavailable.description == "Bluetooth is unavailable on this host")
    }

    // MARK: - The state machine over stand-ins

    @Test func connectedAtOnceGivesAWorkingChannel() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let peers = PeerList()
        var result: Result<StreamChannel, TransportError>?
        RFCOMMConnector.connect(to: try endpoint(), on: loop, driver: peers.driver(connect: { _ in true })) {
            result = $0
        }
        #expect(result == nil)
        #expect(spin(loop) { result != nil })
        let channel = try #require(try? result?.get())
        defer { channel.close() }
        try exchange(channel, peer: try #require(peers.last), loop: loop)
    }

    @Test func inProgressThenWritableWithNoErrorConnects() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let peers = PeerList()
        var result: Result<StreamChannel, TransportError>?
        let c = RFCOMMConnector.connect(to: try endpoint(), on: loop, driver: peers.driver(connect: { _ in false })) {
            result = $0
        }
        #expect(c.phase == .connecting)
        #expect(spin(loop) { result != nil })
        #expect(c.phase == .connected)
        let channel = try #require(try? result?.get())
        defer { channel.close() }
        try exchange(channel, peer: try #require(peers.last), loop: loop)
    }

    static let absentErrors: [Errno] = [.hostIsDown, .connectionRefused, .timedOut, .noRouteToHost]

    @Test(arguments: absentErrors)
    func soErrorAfterInProgressMeansAbsent(_ errno: Errno) throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let peers = PeerList()
        let driver = peers.driver(connect: { _ in false }, pendingError: { _ in errno })
        var result: Result<StreamChannel, TransportError>?
        let ep = try endpoint()
        let c = RFCOMMConnector.connect(to: ep, on: loop, driver: driver) { result = $0 }
        #expect(spin(loop) { result != nil })
        #expect(result.map(failure) == .accessoryAbsent(address: ep.address.description, reason: errno))
        #expect(c.phase == .failed)
    }

    @Test(arguments: [
        (Errno.connectionRefused, "absent"), (.hostIsDown, "absent"), (.addressFamilyNotSupported, "unavailable"),
        (.permissionDenied, "denied"), (.invalidArgument, "system"),
    ])
    func immediateConnectErrorsAreMapped(_ errno: Errno, _ kind: String) throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let peers = PeerList()
        var result: Result<StreamChannel, TransportError>?
        let driver = peers.driver(connect: { fd throws(SyscallError) in throw SyscallError(.connect, errno) })
        RFCOMMConnector.connect(to: try endpoint(), on: loop, driver: driver) { result = $0 }
        #expect(result == nil)
        #expect(spin(loop) { result != nil })
        let error = try #require(result.map(failure) ?? nil)
        switch (kind, error) {
        case ("absent", .accessoryAbsent), ("unavailable", .bluetoothUnavailable), ("denied", .permissionDenied),
            ("system", .system):
            break
        default:
            Issue.record("\(errno) mapped to \(error)")
        }
    }

    @Test func noAnswerTimesOutAsAbsentAtTheDeadlineNotBefore() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let clock = EmbeddedLoop()
        // A pipe's read end never becomes writable: a connect that never completes.
        let pipes = PeerList()
        let driver = pipes.neverConnectingDriver()
        var result: Result<StreamChannel, TransportError>?
        let ep = try endpoint()
        let c = RFCOMMConnector.connect(
            to: ep,
            on: loop,
            timeout: .milliseconds(50),
            driver: driver,
            scheduler: clock
        ) { result = $0 }
        clock.advanceTime(by: .milliseconds(49))
        #expect(result == nil && c.phase == .connecting, "still waiting for the handshake")
        clock.advanceTime(by: .milliseconds(1))
        #expect(result.map(failure) == .accessoryAbsent(address: ep.address.description, reason: .timedOut))
        #expect(c.phase == .failed)
        #expect(loop.leftovers.isEmpty, "the socket is no longer watched")
    }

    @Test func cancelMeansNoCompletion() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let clock = EmbeddedLoop()
        let pipes = PeerList()
        let driver = pipes.neverConnectingDriver()
        var calls = 0
        let c = RFCOMMConnector.connect(
            to: try endpoint(),
            on: loop,
            timeout: .milliseconds(20),
            driver: driver,
            scheduler: clock
        ) { _ in calls += 1 }
        c.cancel()
        c.cancel()
        clock.advanceTime(by: .milliseconds(60))
        #expect(calls == 0 && c.phase == .cancelled, "no timeout after a cancel")
        #expect(clock.leftovers.isEmpty && loop.leftovers.isEmpty)

        // Cancelled after an immediate connect, before delivery: also silent.
        let peers = PeerList()
        let d = RFCOMMConnector.connect(
            to: try endpoint(),
            on: loop,
            driver: peers.driver(connect: { _ in true }),
            scheduler: clock
        ) { _ in calls += 1 }
        d.cancel()
        clock.run()
        #expect(calls == 0)
    }

    @Test func aRealUnixListenerStandsInForTheAccessory() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let path = "/tmp/accessoryd-rfcomm-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let listener = FDBox(try Socket.socket(domain: AF_UNIX, type: Int32(SOCK_STREAM.rawValue)))
        try Socket.bind(listener.raw, .path(path))
        defer { try? FileIO.unlink(path) }
        try Socket.listen(listener.raw)
        let driver = RFCOMMSocketDriver(
            makeSocket: { () throws(SyscallError) in
                try Socket.socket(domain: AF_UNIX, type: Int32(SOCK_STREAM.rawValue))
            },
            connect: { fd, _ throws(SyscallError) in try Socket.connect(fd, .path(path)) }
        )
        var result: Result<StreamChannel, TransportError>?
        RFCOMMConnector.connect(to: try endpoint(), on: loop, driver: driver) { result = $0 }
        #expect(spin(loop) { result != nil })
        let channel = try #require(try? result?.get())
        defer { channel.close() }
        guard let accepted = try Socket.accept(listener.raw) else {
            Issue.record("the listener has no pending connection")
            return
        }
        try exchange(channel, peer: accepted.rawValue, loop: loop)
        accepted.close()
        listener.close()

        // A bound socket nobody listens on refuses: the kernel's ECONNREFUSED is "absent".
        let quiet = "/tmp/accessoryd-rfcomm-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max)).sock"
        let deaf = FDBox(try Socket.socket(domain: AF_UNIX, type: Int32(SOCK_STREAM.rawValue)))
        try Socket.bind(deaf.raw, .path(quiet))
        defer {
            try? FileIO.unlink(quiet)
            deaf.close()
        }
        let refusing = RFCOMMSocketDriver(
            makeSocket: driver.makeSocket,
            connect: { fd, _ throws(SyscallError) in try Socket.connect(fd, .path(quiet)) }
        )
        result = nil
        let ep = try endpoint()
        RFCOMMConnector.connect(to: ep, on: loop, driver: refusing) { result = $0 }
        #expect(spin(loop) { result != nil })
        #expect(result.map(failure) == .accessoryAbsent(address: ep.address.description, reason: .connectionRefused))
    }

    // MARK: - Helpers

    /// True when the kernel refuses Bluetooth sockets (`EAFNOSUPPORT`).
    private static func hostHasNoBluetooth() -> Bool {
        do {
            try RFCOMMSocketDriver.bluetooth.makeSocket().close()
            return false
        } catch {
            return error.errno == .addressFamilyNotSupported
        }
    }

    private func endpoint() throws -> RFCOMMEndpoint {
        try RFCOMMEndpoint(address: BluetoothAddress(parsing: "00:1A:7D:DA:71:13"), channel: 3)
    }

    private func failure(_ r: Result<StreamChannel, TransportError>) -> TransportError? {
        if case .failure(let e) = r { return e }
        return nil
    }

    /// Bytes both ways between a connected channel and the raw peer fd.
    private func exchange(_ channel: StreamChannel, peer: CInt, loop: IOLoop) throws {
        var got: [UInt8] = []
        var gone: [GoneReason] = []
        channel.onBytes = { got += $0 }
        channel.onGone = { gone.append($0) }
        try channel.write(Array("ping".utf8))
        var atPeer: [UInt8] = []
        #expect(
            spin(loop) {
                atPeer += drainAvailable(peer)
                return atPeer.count == 4
            }
        )
        #expect(atPeer == Array("ping".utf8))
        _ = try sendToSocket(peer, Array("pong".utf8))
        #expect(spin(loop) { got.count == 4 })
        #expect(got == Array("pong".utf8))
        #expect(gone.isEmpty)
    }
}

/// Socketpairs made by a stand-in driver: the connector gets one end, the test keeps the other
/// (as a raw number, closed at the end). Any thread.
final class PeerList: Sendable {
    private let peers = Locked<[CInt]>([])

    var last: CInt? { peers.withLock { $0.last } }

    func driver(
        connect: @escaping @Sendable (CInt) throws(SyscallError) -> Bool,
        pendingError: @escaping @Sendable (CInt) throws(SyscallError) -> Errno? = { fd throws(SyscallError) in
            try Socket.pendingError(fd)
        }
    ) -> RFCOMMSocketDriver {
        RFCOMMSocketDriver(
            makeSocket: { [self] () throws(SyscallError) in
                let pair = try Socket.socketPair()
                let peer = pair.second.release()
                peers.withLock { $0.append(peer) }
                return pair.first
            },
            connect: { fd, _ throws(SyscallError) in try connect(fd) },
            pendingError: pendingError
        )
    }

    /// A driver whose connect never completes: the socket is a pipe's read end (never writable);
    /// the write end is kept open here so that it does not hang up either.
    func neverConnectingDriver() -> RFCOMMSocketDriver {
        RFCOMMSocketDriver(
            makeSocket: { [self] () throws(SyscallError) in
                let pipe = try FileIO.pipe()
                let writeEnd = pipe.second.release()
                peers.withLock { $0.append(writeEnd) }
                return pipe.first
            },
            connect: { _, _ in false }
        )
    }

    deinit {
        for fd in peers.withLock({ $0 }) { OwnedFD(adopting: fd).close() }
    }
}
