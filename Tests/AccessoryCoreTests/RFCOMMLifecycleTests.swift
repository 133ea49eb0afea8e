import AccessoryConfig
import AccessoryCore
import AccessoryTestSupport
import IOLoop
import JSONCodec
import SystemCalls
import Testing
import Transports

@testable import ControlProtocol

/// An `rfcomm` accessory through the registry, with a stand-in driver (socketpairs: this machine
/// has no Bluetooth stack): connected → ready → transact → the link drops → `device.state`
/// absent → refused reconnects with back-off → ready → transact again.
///
/// The accessory takes a real device loop (it is not written against a scheduler), so the waits
/// are bounded real-time waits; the back-off is checked with lower bounds only (a timer never
/// fires early), so a loaded machine cannot make the test fail.
@Suite("RFCOMM through the registry")
struct RFCOMMLifecycleTests {
    static let yaml = """
        accessories:
          - name: bt
            rfcomm: {address: "00:1A:7D:DA:71:13", channel: 3}
            framing: {type: line, delimiter: "\\n"}
            response: {timeout_ms: 2000}
            reconnect: {initial_ms: 60, max_ms: 1000}
        """

    @Test("connect, transact, drop, absent, reconnect with back-off, ready, transact")
    func fullLifecycle() throws {
        let device = StandInBluetooth()
        let h = try CoreHarness(sims: [:], yaml: Self.yaml, rfcommDriver: device.driver)
        let c = RecordingOrigin(clientID: 1)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"events":["state"]}}"#, from: c)
        #expect(c.response(1)?.value != nil)
        #expect(h.waitReady("bt"), "the stand-in connection made the accessory ready")
        #expect(device.attempts.count == 1)

        // A transaction over the first connection.
        try transact(h, c, id: 2, device: device, request: "ATI", reply: "stand-in 1.0")

        let status = try #require(statusOf(h, c, id: 3))
        #expect(status["transport"] == "rfcomm")
        #expect(status["identity"]?["address"] == "00:1A:7D:DA:71:13")
        #expect(status["identity"]?["channel"] == 3)
        #expect(status["reason"]?.stringValue?.contains("00:1A:7D:DA:71:13 channel 3") == true)

        // The link drops (the far end closes), and the next two connects are refused.
        device.refuseNext(2)
        device.dropCurrent()
        #expect(
            Wait.until(seconds: 10) { stateNotifications(c).contains { $0.state == "absent" } },
            "device.state announced the accessory absent"
        )
        let absent = try #require(stateNotifications(c).first { $0.state == "absent" })
        #expect(absent.reason.hasPrefix("removed: "))

        // Three attempts: refused, refused, connected; the gaps grow (initial, then doubled).
        #expect(h.waitReady("bt", seconds: 10), "reconnected after the refusals")
        let attempts = device.attempts
        #expect(attempts.count == 4, "the first connect, two refused, one accepted: \(attempts)")
        if attempts.count == 4 {
            let firstGap = attempts[2] - attempts[1]
            let secondGap = attempts[3] - attempts[2]
            #expect(firstGap >= 0.060, "the first retry waited the initial back-off (\(firstGap) s)")
            #expect(secondGap >= 0.120, "the second retry waited twice as long (\(secondGap) s)")
        }
        let states = stateNotifications(c).map(\.state)
        #expect(Array(states.suffix(1)) == ["ready"])
        #expect(states.filter { $0 == "absent" }.count >= 3, "each refusal is reported absent: \(states)")

        let after = try #require(statusOf(h, c, id: 4))
        #expect(after["counters"]?["removals"] == 1)
        #expect(after["counters"]?["opens"] == 2)
        #expect(after["counters"]?["open_attempts"] == 4)
        #expect(after["last_error"]?.stringValue?.contains("00:1A:7D:DA:71:13") == true)

        // The new connection serves requests.
        try transact(h, c, id: 5, device: device, request: "AT", reply: "OK")
    }

    @Test("a request queued when the link drops fails with device removed, not with silence")
    func dropFailsTheRequestInFlight() throws {
        let device = StandInBluetooth()
        let h = try CoreHarness(sims: [:], yaml: Self.yaml, rfcommDriver: device.driver)
        let c = RecordingOrigin(clientID: 1)
        #expect(h.waitReady("bt"))
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"bt","data":"AT"}}"#, from: c)
        #expect(Wait.until(seconds: 10) { device.received.contains(Array("AT\n".utf8)) })
        device.dropCurrent()
        let response = c.response(1)
        #expect(response?.errorCode == .deviceRemoved, "got \(String(describing: response))")
        #expect(h.waitReady("bt", seconds: 10))
    }

    // MARK: - Helpers

    /// Sends `request` as a `transact`, answers it from the stand-in device, checks the reply.
    private func transact(
        _ h: CoreHarness,
        _ c: RecordingOrigin,
        id: Int,
        device: StandInBluetooth,
        request: String,
        reply: String
    ) throws {
        device.clearReceived()
        h.request(
            #"{"jsonrpc":"2.0","id":\#(id),"method":"transact","params":{"device":"bt","data":"\#(request)"}}"#,
            from: c
        )
        #expect(
            Wait.until(seconds: 10) { device.received == Array("\(request)\n".utf8) },
            "the device got the request"
        )
        #expect(try device.send(Array("\(reply)\n".utf8)), "the connection is up")
        #expect(frameTexts(c.response(Int64(id))?.value) == [reply])
    }

    private func statusOf(_ h: CoreHarness, _ c: RecordingOrigin, id: Int) -> JSONValue? {
        h.request(#"{"jsonrpc":"2.0","id":\#(id),"method":"device.status","params":{"device":"bt"}}"#, from: c)
        return c.response(Int64(id))?.value
    }

    private func stateNotifications(_ c: RecordingOrigin) -> [(state: String, reason: String)] {
        c.notifications.compactMap { line in
            guard let message = try? JSONParser.parse(line), message["method"] == "device.state",
                let params = message["params"], params["device"] == "bt"
            else { return nil }
            return (params["state"]?.stringValue ?? "", params["reason"]?.stringValue ?? "")
        }
    }
}

/// A Bluetooth accessory stood in for by socketpairs: each connect gets a new pair, the test
/// keeps the far end (the "device"). Connects may be refused (`ECONNREFUSED`, as for a device out
/// of range); every attempt's monotonic time is recorded.
///
/// Any thread: the driver's closures run on the device loop, the test reads from its own thread;
/// all state is behind a lock.
final class StandInBluetooth: Sendable {
    private struct State {
        /// The far end of the current connection (a raw descriptor this object owns).
        var peer: CInt?
        var refusals = 0
        var attempts: [Double] = []
        var received: [UInt8] = []

        mutating func closePeer() {
            if let fd = peer { OwnedFD(adopting: fd).close() }
            peer = nil
        }
    }

    private let state = Locked(State())

    var attempts: [Double] { state.withLock { $0.attempts } }

    /// Bytes the accessory wrote to the current connection so far (what is available is read now).
    var received: [UInt8] {
        state.withLock { s in
            if let fd = s.peer {
                while let chunk = try? FileIO.read(fd, max: 4096), !chunk.isEmpty { s.received += chunk }
            }
            return s.received
        }
    }

    func clearReceived() {
        _ = received
        state.withLock { $0.received.removeAll() }
    }

    /// The next `count` connects fail with `ECONNREFUSED`.
    func refuseNext(_ count: Int) { state.withLock { $0.refusals = count } }

    /// The device closes its end: the accessory reads end of file.
    func dropCurrent() { state.withLock { $0.closePeer() } }

    /// Writes `bytes` from the device; false when no connection is up.
    func send(_ bytes: [UInt8]) throws -> Bool {
        try state.withLock { s throws(SyscallError) -> Bool in
            guard let fd = s.peer else { return false }
            try FileIO.writeAll(fd, bytes)
            return true
        }
    }

    var driver: RFCOMMSocketDriver {
        RFCOMMSocketDriver(
            makeSocket: { [self] () throws(SyscallError) in
                let pair = try Socket.socketPair()
                let far = pair.second.release()
                state.withLock { s in
                    s.closePeer()
                    s.attempts.append(MonotonicNow.seconds())
                    s.received.removeAll()
                    s.peer = far
                }
                return pair.first
            },
            connect: { [self] _, _ throws(SyscallError) in
                // Refused: the far end goes too, as the kernel would close a refused socket's peer.
                let refused = state.withLock { s -> Bool in
                    guard s.refusals > 0 else { return false }
                    s.refusals -= 1
                    s.closePeer()
                    return true
                }
                if refused { throw SyscallError(.connect, .connectionRefused) }
                // "In progress": the connector waits for writability and reads SO_ERROR, as with a
                // real RFCOMM connect.
                return false
            }
        )
    }

    deinit { state.withLock { $0.closePeer() } }
}
