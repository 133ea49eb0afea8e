import ControlProtocol
import Testing

@Suite("control, clients.list and client.disconnect params")
struct ControlParamsTests {
    @Test func linesSequenceAndBreakDecode() throws {
        #expect(
            try method("control", #"{"device":"esp","dtr":false,"rts":true}"#)
                == .control(ControlParams(device: "esp", dtr: false, rts: true))
        )
        let esp32 =
            #"{"device":"esp","sequence":[{"dtr":false,"rts":true,"ms":100},{"dtr":true,"rts":false,"ms":50},{"dtr":false,"ms":0}]}"#
        #expect(
            try method("control", esp32)
                == .control(
                    ControlParams(
                        device: "esp",
                        sequence: [
                            LineStep(dtr: false, rts: true, ms: 100), LineStep(dtr: true, rts: false, ms: 50),
                            LineStep(dtr: false, ms: 0),
                        ]
                    )
                )
        )
        #expect(
            try method("control", #"{"device":"m","break_ms":250}"#)
                == .control(ControlParams(device: "m", breakMs: 250))
        )
    }

    @Test func anAttachSessionsTokenDecodes() throws {
        let params = ControlParams(device: "m", breakMs: 250, session: "5f0c2a")
        #expect(try method("control", #"{"device":"m","break_ms":250,"session":"5f0c2a"}"#) == .control(params))
        #expect(
            invalidParams("control", #"{"device":"m","dtr":true,"session":7}"#)
                == "params.session must be the session token of attach's answer (a string) (got 7)"
        )
        #expect(
            invalidParams("control", #"{"device":"m","dtr":true,"session":""}"#)?.contains("params.session") == true
        )
    }

    @Test func badControlParamsSayWhatIsWrong() {
        #expect(invalidParams("control", #"{"device":"m"}"#)?.contains("at least one of params.dtr") == true)
        #expect(
            invalidParams("control", #"{"device":"m","dtr":"on"}"#) == #"params.dtr must be true or false (got "on")"#
        )
        #expect(invalidParams("control", #"{"device":"m","break_ms":0}"#)?.contains("params.break_ms") == true)
        #expect(
            invalidParams("control", #"{"device":"m","break_ms":10001}"#)
                == "params.break_ms must be at most 10000 (got 10001)"
        )
        #expect(
            invalidParams("control", #"{"device":"m","sequence":[]}"#) == "params.sequence must not be empty (omit it)"
        )
        #expect(
            invalidParams("control", #"{"device":"m","sequence":[{"ms":5}]}"#)
                == "params.sequence[0] sets neither dtr nor rts"
        )
        #expect(
            invalidParams("control", #"{"device":"m","sequence":[{"dtr":true}]}"#)
                == "params.sequence[0].ms is required"
        )
        #expect(
            invalidParams("control", #"{"device":"m","sequence":[{"dtr":true,"ms":1},{"dtr":true,"ms":-1}]}"#)?
                .hasPrefix("params.sequence[1].ms must be an integer from 0 to 10000") == true
        )
        #expect(
            invalidParams("control", #"{"device":"m","sequence":[{"dtr":true,"ms":1,"dsr":true}]}"#)
                == #"unknown member "dsr" in params.sequence[0]; accepted: dtr, rts, ms"#
        )
        let long = "[" + Array(repeating: #"{"dtr":true,"ms":0}"#, count: 33).joined(separator: ",") + "]"
        #expect(
            invalidParams("control", #"{"device":"m","sequence":\#(long)}"#)
                == "params.sequence has 33 steps; at most 32 are allowed"
        )
        let slow = "[" + Array(repeating: #"{"dtr":true,"ms":6000}"#, count: 2).joined(separator: ",") + "]"
        #expect(
            invalidParams("control", #"{"device":"m","sequence":\#(slow)}"#)
                == "params.sequence lasts 12000 ms; at most 10000 ms are allowed"
        )
    }

    @Test func administratorMethods() throws {
        #expect(try method("clients.list") == .clientsList)
        #expect(invalidParams("clients.list", #"{"id":1}"#) == "clients.list takes no params (got params.id)")
        #expect(try method("client.disconnect", #"{"id":12}"#) == .clientDisconnect(ClientParams(id: 12)))
        #expect(invalidParams("client.disconnect", "{}") == "params.id is required")
        #expect(invalidParams("client.disconnect", #"{"id":0}"#)?.contains("a client id") == true)
    }

    @Test func linesIsAnEventOnlyWhenAskedFor() throws {
        #expect(try method("subscribe", #"{"events":["lines"]}"#) == .subscribe(SubscriptionParams(events: [.lines])))
        #expect(!EventKind.defaultKinds.contains(.lines))
    }
}
