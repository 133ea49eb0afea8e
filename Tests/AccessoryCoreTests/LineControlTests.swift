import AccessoryConfig
import AccessorySimulator
import AccessoryTestSupport
import ControlProtocol
import Glibc
import IOLoop
import JSONCodec
import SystemCalls
import Testing

@testable import AccessoryCore

/// `control` and `device.lines` through the registry. The simulators are ptys, which have no
/// modem lines (their ioctls fail with ENOTTY): that is tested as it is, and the driver path of a
/// real UART through the system-call seam, answering the modem-line ioctls on the harness's loop
/// thread only (tests run in parallel in one process).
@Suite("modem lines and break")
struct LineControlTests {
    static let yaml = """
        accessories:
          - name: echo
            path: {sim:echo}
            framing: {type: line, delimiter: "\\n"}
            response: {timeout_ms: 1000}
        """

    static func harness() throws -> CoreHarness {
        let h = try CoreHarness(sims: ["echo": SimulatorConfiguration(name: "echo")], yaml: yaml)
        #expect(h.waitReady("echo"))
        return h
    }

    static let modemCalls: Set<SyscallName> = [.tiocmget, .tiocmbis, .tiocmbic, .tiocsbrk, .tioccbrk]

    /// A UART on the harness's loop thread: the modem-line ioctls succeed, TIOCMGET reports
    /// `inputs.value`; every call is recorded with its monotonic time.
    final class PretendUART: Sendable {
        let inputs = Shared<CInt>(0)
        let calls = Shared<[(SyscallName, UInt64)]>([])
        let failing = Shared<Errno?>(nil)
        private let token: FaultInjection.Token

        init(_ h: CoreHarness) {
            let thread = Wait.onLoop(h.loop) { UInt(pthread_self()) }!
            let (inputs, calls, failing) = (inputs, calls, failing)
            token = FaultInjection.install { name, _ in
                guard LineControlTests.modemCalls.contains(name), UInt(pthread_self()) == thread else { return nil }
                calls.mutate { $0.append((name, MonotonicClock.nowNanoseconds())) }
                if let errno = failing.value { return .error(errno) }
                return .answer(name == .tiocmget ? inputs.value : 0)
            }
        }

        func remove() { FaultInjection.remove(token) }
        var names: [SyscallName] { calls.value.map(\.0) }
    }

    static func control(_ h: CoreHarness, _ params: String, id: Int64, from c: RecordingOrigin) -> Result<
        JSONValue, RPCError
    >? {
        h.request(#"{"jsonrpc":"2.0","id":\#(id),"method":"control","params":{"device":"echo",\#(params)}}"#, from: c)
        return c.response(id)
    }

    @Test func onAPtyTheAnswerNamesTheAccessoryAndTheReason() throws {
        let h = try Self.harness()
        let c = RecordingOrigin(clientID: 1)
        let refused = Self.control(h, #""dtr":true"#, id: 1, from: c)
        #expect(refused?.errorCode == .ioError)
        #expect(
            refused?.failureMessage
                == "I/O error on echo: modem lines are not available on \(h.dir)/echo: not a serial port (ENOTTY)"
        )
        // A break a pty does take; no lines to report.
        let broke = Self.control(h, #""break_ms":20"#, id: 2, from: c)
        #expect(broke?.value?["lines"]?.isNull == true)
        #expect(broke?.value?["device"] == .string("echo"))
        h.request(#"{"jsonrpc":"2.0","id":3,"method":"device.status","params":{"device":"echo"}}"#, from: c)
        #expect(c.response(3)?.value?["lines"]?.isNull == true)
        // The accessory goes on serving.
        h.request(
            #"{"jsonrpc":"2.0","id":4,"method":"transact","params":{"device":"echo","data":"still here"}}"#,
            from: c
        )
        #expect(frameTexts(c.response(4)?.value) == ["still here"])
    }

    @Test func theEsp32SequenceDrivesTheLinesInOrderAndInTime() throws {
        let h = try Self.harness()
        let uart = PretendUART(h)
        defer { uart.remove() }
        uart.inputs.mutate { $0 = Termios.ModemLines([.cts, .dsr]).rawValue }
        let c = RecordingOrigin(clientID: 1)
        let esp32 =
            #""sequence":[{"dtr":false,"rts":true,"ms":100},{"dtr":true,"rts":false,"ms":50},{"dtr":false,"ms":0}]"#
        let result = Self.control(h, esp32, id: 1, from: c)
        let lines = result?.value?["lines"]
        #expect(lines?["cts"] == .bool(true) && lines?["dsr"] == .bool(true))
        #expect(lines?["ri"] == .bool(false) && lines?["dcd"] == .bool(false))
        // DTR before RTS in each step: off DTR, on RTS | on DTR, off RTS | off DTR; then read back.
        #expect(uart.names == [.tiocmbic, .tiocmbis, .tiocmbis, .tiocmbic, .tiocmbic, .tiocmget])
        let t = uart.calls.value.map(\.1)
        if t.count == 6 {
            #expect(t[2] - t[1] >= 100_000_000, "the first step is held 100 ms")
            #expect(t[4] - t[3] >= 50_000_000, "the second step is held 50 ms")
        }
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"device.status","params":{"device":"echo"}}"#, from: c)
        #expect(c.response(2)?.value?["lines"]?["cts"] == .bool(true))
    }

    @Test func aFailingIoctlFailsTheControlAndTheAccessoryGoesOn() throws {
        let h = try Self.harness()
        let uart = PretendUART(h)
        defer { uart.remove() }
        uart.failing.mutate { $0 = .ioError }
        let c = RecordingOrigin(clientID: 1)
        let failed = Self.control(h, #""rts":true"#, id: 1, from: c)
        #expect(failed?.errorCode == .ioError)
        #expect(
            failed?.failureMessage?.contains("cannot assert [RTS] on \(h.dir)/echo") == true,
            "\(String(describing: failed))"
        )
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"transact","params":{"device":"echo","data":"x"}}"#, from: c)
        #expect(frameTexts(c.response(2)?.value) == ["x"])
    }

    @Test func aControlWaitsForTheTransactionAheadOfIt() throws {
        let h = try RequestTests.slowAccessory()
        let a = RecordingOrigin(clientID: 1)
        let b = RecordingOrigin(clientID: 2)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"slow","data":"first"}}"#, from: a)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"control","params":{"device":"slow","break_ms":1}}"#, from: b)
        let control = b.response(1)
        #expect(control?.value?["device"] == .string("slow"))
        // The slow accessory answers after 300 ms: a control that cut in would have been
        // answered long before the transaction.
        #expect(a.response(1, seconds: 0) != nil, "the transaction ahead answered first")
        #expect(frameTexts(a.response(1)?.value) == ["first"])
    }

    @Test func subscribersHearWhenAnInputLineChanges() throws {
        let h = try Self.harness()
        let uart = PretendUART(h)
        defer { uart.remove() }
        let c = RecordingOrigin(clientID: 1)
        let other = RecordingOrigin(clientID: 2)
        h.request(
            #"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"device":"echo","events":["lines"]}}"#,
            from: c
        )
        #expect(c.response(1)?.value?["events"] == .array([.string("lines")]))
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"subscribe","params":{"device":"echo"}}"#, from: other)
        #expect(other.response(1) != nil)
        // The first reading is the baseline; then CTS and RI come up.
        #expect(Wait.until { uart.names.contains(.tiocmget) })
        uart.inputs.mutate { $0 = Termios.ModemLines([.cts, .ri]).rawValue }
        var text = ""
        #expect(
            Wait.until {
                text = c.notifications.map { String(decoding: $0, as: UTF8.self) }.joined()
                return text.contains("device.lines")
            }
        )
        #expect(
            text.contains(
                #""device":"echo","lines":{"dtr":false,"rts":false,"cts":true,"dsr":false,"dcd":false,"ri":true}"#
            )
        )
        let otherText = other.notifications.map { String(decoding: $0, as: UTF8.self) }.joined()
        #expect(!otherText.contains("device.lines"), "lines are sent only to who asks for them")

        // Unsubscribed, nobody polls: the poll is stopped by the time the answer comes (that a
        // stopped poll reads no more is shown on virtual time in LinePollTests).
        let r = h.registry
        #expect(Wait.onLoop(h.loop) { r.accessory(named: "echo")?.linePoll.isPolling } == true)
        h.request(#"{"jsonrpc":"2.0","id":2,"method":"unsubscribe","params":{"events":["lines"]}}"#, from: c)
        #expect(c.response(2) != nil)
        #expect(Wait.onLoop(h.loop) { r.accessory(named: "echo")?.linePoll.isPolling } == false)
    }
}

extension Result where Success == JSONValue, Failure == RPCError {
    var failureMessage: String? {
        if case .failure(let e) = self { return e.message }
        return nil
    }
}
