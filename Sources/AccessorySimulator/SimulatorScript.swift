/// The `script` personality's program: expect/send steps, usually read from a YAML file.
///
/// The file is either a list of steps, or a mapping with `steps:` and options:
/// ```yaml
/// mode: rules            # rules (default): each line is answered by the first step that
///                        #   matches it; sequence: the steps must be matched in order (after
///                        #   the last one, the script starts over)
/// terminator: any        # how inbound lines end: lf, crlf, cr, any (default: the accessory's)
/// reply_terminator: "\r\n"  # appended to each sent line (default: the request's own terminator)
/// unmatched: "ERR"       # sent for a line no step matches (default: nothing)
/// steps:
///   - expect: "*IDN?"            # the line equals this text, or the regex matches the whole line
///     send: "ACME,Model 1,1234,1.0"
///   - expect: 'VOLT (\d+)'
///     send: ["SET $1", "OK"]     # one line or several; $0…$9 are the regex's captures
///     delay_ms: 20               # extra processing time of this reply
///   - expect: "RESET"            # no send: the line is consumed without a reply
/// ```
/// A step's `expect` is first compared as plain text, then as a Swift regex matched against the
/// whole line (so `*IDN?`, which is not a valid regex, still works as text).
///
/// Any thread (a value).
package struct SimulatorScript: Sendable, Equatable {
    /// One expect/send step. Any thread (a value).
    package struct Step: Sendable, Equatable {
        package var expect: String
        /// Lines to send (each followed by the reply terminator); nil sends nothing.
        package var send: [String]?
        package var delay: Duration
        /// Where the step is in its file (0 when built in code).
        package var line: Int

        package init(expect: String, send: [String]?, delay: Duration = .zero, line: Int = 0) {
            self.expect = expect
            self.send = send
            self.delay = delay
            self.line = line
        }
    }

    /// How steps are matched. Any thread (a value).
    package enum Mode: String, Sendable, CaseIterable {
        case rules
        case sequence
    }

    package var steps: [Step]
    package var mode: Mode
    /// Inbound line ends; nil takes the accessory's configured terminator.
    package var terminator: LineTerminator?
    /// Appended to every sent line; nil uses the terminator the request arrived with.
    package var replyTerminator: [UInt8]?
    /// Lines sent for input that no step matches; nil sends nothing.
    package var unmatched: [String]?

    package init(
        steps: [Step],
        mode: Mode = .rules,
        terminator: LineTerminator? = nil,
        replyTerminator: [UInt8]? = nil,
        unmatched: [String]? = nil
    ) {
        self.steps = steps
        self.mode = mode
        self.terminator = terminator
        self.replyTerminator = replyTerminator
        self.unmatched = unmatched
    }
}
