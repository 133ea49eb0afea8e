import AccessoryTestSupport
import ControlProtocol
import JSONCodec
import Testing

/// `control` with an `attach` session's token: the session's own break/DTR/RTS, run inside the
/// session at once, for the attach's user only. The UART is the system-call seam's
/// (``LineControlTests/PretendUART``): the modem-line ioctls succeed on the harness's loop thread.
@Suite("attach session controls")
struct SessionControlTests {
    /// What each test starts from: echo on a pretend UART (remove it at the end), and client 1
    /// (uid 1000) attached to it; the session's token.
    static func attached() throws -> (
        h: CoreHarness, uart: LineControlTests.PretendUART, owner: RecordingOrigin, token: String
    ) {
        let h = try LineControlTests.harness()
        let uart = LineControlTests.PretendUART(h)
        let owner = RecordingOrigin(clientID: 1, uid: 1000)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"attach","params":{"device":"echo"}}"#, from: owner)
        let answer = owner.response(1)?.value
        guard answer?["attached"] == .bool(true), case .string(let token)? = answer?["session"] else {
            uart.remove()
            throw Failure(description: "the attach's answer has no session token: \(String(describing: answer))")
        }
        return (h, uart, owner, token)
    }

    struct Failure: Error, CustomStringConvertible { let description: String }

    static func control(_ h: CoreHarness, _ params: String, session: String?, id: Int64, from c: RecordingOrigin)
        -> Result<JSONValue, RPCError>?
    {
        let token = session.map { #","session":"\#($0)""# } ?? ""
        return LineControlTests.control(h, params + token, id: id, from: c)
    }

    @Test func theSessionsControlRunsAtOnceWhileTheAttachHoldsTheAccessory() throws {
        let (h, uart, owner, token) = try Self.attached()
        defer { uart.remove() }
        #expect(token.count == 32 && token.allSatisfy(\.isHexDigit), "\(token)")
        // The attach's client sends it on another connection (the attach's carries raw bytes).
        let side = RecordingOrigin(clientID: 2, uid: 1000)
        let lowered = Self.control(h, #""dtr":false"#, session: token, id: 1, from: side)
        #expect(lowered?.value?["device"] == .string("echo"), "\(String(describing: lowered))")
        #expect(uart.names == [.tiocmbic, .tiocmget], "DTR lowered, then the lines read back")
        let raised = Self.control(h, #""rts":true,"break_ms":5"#, session: token, id: 2, from: side)
        #expect(raised?.value != nil, "\(String(describing: raised))")
        #expect(uart.names == [.tiocmbic, .tiocmget, .tiocmbis, .tiocsbrk, .tioccbrk, .tiocmget])
        // All that during the session: it still holds the accessory against everyone else.
        let other = RecordingOrigin(clientID: 3, uid: 1000)
        h.request(#"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"echo","data":"x"}}"#, from: other)
        #expect(other.response(1)?.failureMessage?.contains("echo is locked by client 1") == true)
        #expect(owner.disconnectReasons.isEmpty)
    }

    @Test func withoutTheTokenOrFromAnotherUserTheControlIsRefused() throws {
        let (h, uart, owner, token) = try Self.attached()
        defer { uart.remove() }
        let sameUser = RecordingOrigin(clientID: 2, uid: 1000)
        // No token: another client, refused at once naming the holder.
        let plain = Self.control(h, #""dtr":false"#, session: nil, id: 1, from: sameUser)
        #expect(plain?.failureMessage?.contains("echo is locked by client 1") == true)
        // A wrong token (one digit changed), a token of another length, the right token from
        // another user: one and the same answer, which tells nothing about the session.
        let wrong = String(token.dropLast()) + (token.last == "0" ? "1" : "0")
        let anotherUser = RecordingOrigin(clientID: 3, uid: 1001)
        let refusals = [
            Self.control(h, #""dtr":false"#, session: wrong, id: 2, from: sameUser),
            Self.control(h, #""dtr":false"#, session: token + "00", id: 3, from: sameUser),
            Self.control(h, #""dtr":false"#, session: token, id: 1, from: anotherUser),
        ]
        for refused in refusals {
            #expect(refused?.errorCode == .permissionDenied, "\(String(describing: refused))")
            #expect(
                refused?.failureMessage
                    == "params.session does not name an attach session of yours on echo (the session may have ended)"
            )
        }
        #expect(uart.names.isEmpty, "no refused control reached the line")
        // Logged, rate-limited, without the token (right or wrong): the first refusal now, the
        // others (within a second) held back and counted in the next report.
        let said = h.logged.withLock { $0 }.filter { $0.contains("naming an attach session") }
        #expect(said.count == 1, "\(said)")
        #expect(said.first?.contains("client 2 (uid 1000)") == true, "\(said)")
        #expect(!h.logged.withLock { $0 }.contains { $0.contains(token) || $0.contains(wrong) }, "a token was logged")
        // The session over, its token admits nothing, not even its own user's requests.
        h.registry.clientLeft(owner)
        let late = Self.control(h, #""dtr":false"#, session: token, id: 4, from: sameUser)
        #expect(late?.errorCode == .permissionDenied)
        #expect(uart.names.isEmpty)
    }

    @Test func aControlStillRunningWhenTheSessionEndsEndsWithIt() throws {
        let (h, uart, owner, token) = try Self.attached()
        defer { uart.remove() }
        let side = RecordingOrigin(clientID: 2, uid: 1000)
        let long = #""sequence":[{"dtr":false,"ms":5000},{"dtr":true,"ms":0}]"#
        h.request(
            #"{"jsonrpc":"2.0","id":1,"method":"control","params":{"device":"echo",\#(long),"session":"\#(token)"}}"#,
            from: side
        )
        #expect(Wait.until { uart.names == [.tiocmbic] }, "the first step ran")
        h.registry.clientLeft(owner)
        let ended = side.response(1, seconds: 3)
        #expect(ended?.errorCode == .cancelled, "\(String(describing: ended))")
        #expect(ended?.failureMessage == "the attach session on echo ended before this control finished")
        #expect(uart.names == [.tiocmbic], "the second step never ran")
        // The accessory serves the next client (once it has settled after the raw session).
        h.request(
            #"{"jsonrpc":"2.0","id":2,"method":"transact","params":{"device":"echo","data":"next","wait_ms":5000}}"#,
            from: side
        )
        #expect(frameTexts(side.response(2)?.value) == ["next"])
    }
}
