import JSONCodec

/// One step of a `control` sequence: set the lines it names, then hold them `ms` milliseconds
/// before the next step. `{dtr?, rts?, ms}` on the wire; `true` asserts a line (on), `false`
/// de-asserts it.
///
/// Threading: a value. Any thread.
public struct LineStep: Sendable, Hashable {
    public var dtr: Bool?
    public var rts: Bool?
    /// How long the lines stay so before the next step (0 ... ``ControlLimits/maxStepMs``).
    public var ms: Int64

    public init(dtr: Bool? = nil, rts: Bool? = nil, ms: Int64) {
        self.dtr = dtr
        self.rts = rts
        self.ms = ms
    }
}

/// Bounds on `control`: a sequence is a reset dance, not a way to hold an accessory's queue.
///
/// Threading: constants. Any thread.
package enum ControlLimits {
    /// The most steps in one sequence.
    package static let maxSteps = 32
    /// The longest single step, and the longest whole sequence (its steps' `ms` added up).
    package static let maxStepMs: Int64 = 10_000
    package static let maxSequenceMs: Int64 = 10_000
    /// The longest break (`break_ms`).
    package static let maxBreakMs: Int64 = 10_000
}

/// `{device, dtr?, rts?, sequence?, break_ms?, wait_ms?, session?}`: for `control`. What is given
/// runs in this order: `dtr`/`rts` set at once, then the sequence's steps, then the break. At
/// least one of them is given.
///
/// Threading: a value. Any thread.
public struct ControlParams: Sendable, Hashable {
    public var device: String
    public var dtr: Bool?
    public var rts: Bool?
    public var sequence: [LineStep]
    /// A break of this many milliseconds (1 ... ``ControlLimits/maxBreakMs``), if any.
    public var breakMs: Int64?
    /// As for `transact`: how long to wait for the accessory's turn.
    public var waitMs: Int64?
    /// The token of the caller's `attach` session on the accessory (its answer's `session`): the
    /// control then runs inside that session, at once, instead of waiting for its end.
    public var session: String?

    public init(
        device: String,
        dtr: Bool? = nil,
        rts: Bool? = nil,
        sequence: [LineStep] = [],
        breakMs: Int64? = nil,
        waitMs: Int64? = nil,
        session: String? = nil
    ) {
        self.device = device
        self.dtr = dtr
        self.rts = rts
        self.sequence = sequence
        self.breakMs = breakMs
        self.waitMs = waitMs
        self.session = session
    }

    /// The params as sent (client side).
    var json: JSONObject {
        var object: JSONObject = ["device": .string(device)]
        if let dtr { object.append("dtr", .bool(dtr)) }
        if let rts { object.append("rts", .bool(rts)) }
        if !sequence.isEmpty {
            object.append(
                "sequence",
                .array(
                    sequence.map { step in
                        var o = JSONObject()
                        if let d = step.dtr { o.append("dtr", .bool(d)) }
                        if let r = step.rts { o.append("rts", .bool(r)) }
                        o.append("ms", .integer(step.ms))
                        return .object(o)
                    }
                )
            )
        }
        if let breakMs { object.append("break_ms", .integer(breakMs)) }
        if let waitMs { object.append("wait_ms", .integer(waitMs)) }
        if let session { object.append("session", .string(session)) }
        return object
    }
}

extension ParamReader {
    /// A `true`/`false` member.
    func bool(_ key: String) throws(RPCError) -> Bool? {
        guard let value = value(key) else { return nil }
        guard case .bool(let flag) = value else {
            throw .invalidParams("params.\(key) must be true or false (got \(ValueDescription.describe(value)))")
        }
        return flag
    }

    /// `control`'s params, checked against ``ControlLimits``.
    func controlParams() throws(RPCError) -> ControlParams {
        let params = ControlParams(
            device: try required("device", device),
            dtr: try bool("dtr"),
            rts: try bool("rts"),
            sequence: try sequence(),
            breakMs: try integer(
                "break_ms",
                in: 1...ControlLimits.maxBreakMs,
                what: "a positive integer (milliseconds)"
            ),
            waitMs: try milliseconds("wait_ms", allowZero: true),
            session: try sessionToken()
        )
        if params.dtr == nil, params.rts == nil, params.sequence.isEmpty, params.breakMs == nil {
            throw .invalidParams(
                "control needs at least one of params.dtr, params.rts, params.sequence, params.break_ms"
            )
        }
        return params
    }

    /// `session`: a non-empty string (whether it names a session is the daemon's to say).
    private func sessionToken() throws(RPCError) -> String? {
        guard let value = value("session") else { return nil }
        guard case .string(let token) = value, !token.isEmpty else {
            throw .invalidParams(
                "params.session must be the session token of attach's answer (a string) "
                    + "(got \(ValueDescription.describe(value)))"
            )
        }
        return token
    }

    private func sequence() throws(RPCError) -> [LineStep] {
        guard let value = value("sequence") else { return [] }
        let shape = "an array of {dtr?, rts?, ms} steps"
        guard case .array(let elements) = value else {
            throw .invalidParams("params.sequence must be \(shape) (got \(ValueDescription.describe(value)))")
        }
        guard !elements.isEmpty else { throw .invalidParams("params.sequence must not be empty (omit it)") }
        guard elements.count <= ControlLimits.maxSteps else {
            throw .invalidParams(
                "params.sequence has \(elements.count) steps; at most \(ControlLimits.maxSteps) are allowed"
            )
        }
        var steps: [LineStep] = []
        var total: Int64 = 0
        for (index, element) in elements.enumerated() {
            let name = "params.sequence[\(index)]"
            guard case .object(let object) = element else {
                throw .invalidParams(
                    "\(name) must be an object {dtr?, rts?, ms} (got \(ValueDescription.describe(element)))"
                )
            }
            for member in object.members where !["dtr", "rts", "ms"].contains(member.key) {
                throw .invalidParams(
                    "unknown member \(ValueDescription.quoted(member.key)) in \(name); accepted: dtr, rts, ms"
                )
            }
            func flag(_ key: String) throws(RPCError) -> Bool? {
                guard let v = object[key], !v.isNull else { return nil }
                guard case .bool(let b) = v else {
                    throw .invalidParams("\(name).\(key) must be true or false (got \(ValueDescription.describe(v)))")
                }
                return b
            }
            let dtr = try flag("dtr")
            let rts = try flag("rts")
            var ms: Int64?
            if let v = object["ms"], !v.isNull {
                guard case .number(.integer(let n)) = v, (0...ControlLimits.maxStepMs).contains(n) else {
                    throw .invalidParams(
                        "\(name).ms must be an integer from 0 to \(ControlLimits.maxStepMs) (milliseconds) "
                            + "(got \(ValueDescription.describe(v)))"
                    )
                }
                ms = n
            }
            guard let ms else { throw .invalidParams("\(name).ms is required") }
            guard dtr != nil || rts != nil else { throw .invalidParams("\(name) sets neither dtr nor rts") }
            total += ms
            steps.append(LineStep(dtr: dtr, rts: rts, ms: ms))
        }
        guard total <= ControlLimits.maxSequenceMs else {
            throw .invalidParams(
                "params.sequence lasts \(total) ms; at most \(ControlLimits.maxSequenceMs) ms are allowed"
            )
        }
        return steps
    }
}
