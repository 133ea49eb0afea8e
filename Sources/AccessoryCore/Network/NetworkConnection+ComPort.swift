import AccessoryConfig
import ControlProtocol
import IOLoop
import JSONCodec
import TelnetComPort
import Transports

/// RFC 2217's commands, acted on and answered (every answer carries the command's code plus
/// 100). Line settings go to the line for the session when the listener's `settings` is
/// `follow`; with `locked`, every setting is answered with the accessory's configured value and
/// nothing changes. DTR and RTS go through the session's `control` requests (the machinery
/// `accessoryctl attach` uses); BREAK on and off through the session's own entry point.
/// Device loop only.
extension NetworkConnection {
    typealias Code = ComPortRequest.Code

    func comPort(_ request: ComPortRequest) {
        switch request {
        case .signature(let text):
            // An empty signature asks for the server's; the client's own is only logged.
            if text.isEmpty {
                send(ComPortReply.encode(Code.signature, Array("accessoryd \(accessoryName)".utf8)))
            } else {
                let shown = String(decoding: text.prefix(64).filter { (32..<127).contains($0) }, as: UTF8.self)
                registry?.log(.info, "\(description): client signature \"\(shown)\"")
            }
        case .setBaudRate(let rate):
            if rate != 0 { changeLine { $0.baudRate = rate } }
            send(ComPortReply.baudRate(effectiveLine.baudRate))
        case .setDataSize(let size):
            if let bits = SerialSettings.DataBits(rawValue: Int(size)) { changeLine { $0.dataBits = bits } }
            send(ComPortReply.byte(Code.setDataSize, UInt8(effectiveLine.dataBits.rawValue)))
        case .setParity(let code):
            if let parity = ComPortState.parity(code: code) { changeLine { $0.parity = parity } }
            send(ComPortReply.byte(Code.setParity, ComPortState.parityCode(effectiveLine.parity)))
        case .setStopSize(let code):
            if let stop = ComPortState.stopBits(code: code) { changeLine { $0.stopBits = stop } }
            send(ComPortReply.byte(Code.setStopSize, ComPortState.stopCode(effectiveLine.stopBits)))
        case .setControl(let value):
            setControl(value)
        case .notifyLineState:
            send(ComPortReply.byte(Code.notifyLineState, currentLineState()))
        case .notifyModemState:
            send(ComPortReply.byte(Code.notifyModemState, currentModemState(sinceLast: false)))
        case .flowControlSuspend:
            outputSuspended = true
            updateInterest()
        case .flowControlResume:
            outputSuspended = false
            send([])
            updateInterest()
        case .setLineStateMask(let mask):
            port.lineStateMask = mask
            // A new mask, a new baseline: only changes from now on are told. The baseline is
            // read before the answer goes out, so a change the client makes after the answer
            // is one.
            stopLineStatePoll()
            startLineStatePollIfAsked()
            send(ComPortReply.byte(Code.setLineStateMask, mask))
        case .setModemStateMask(let mask):
            port.modemStateMask = mask
            send(ComPortReply.byte(Code.setModemStateMask, mask))
            if mask == 0 { stopModemPoll() } else { startModemPollIfAsked() }
        case .purgeData(let which):
            // Answered at once (pyserial waits for it on open): the device's bytes are sent on
            // as they come, so nothing of the server's is held to purge.
            send(ComPortReply.byte(Code.purgeData, which))
        }
    }

    /// The settings a client is told: its own with `follow`, the configured ones with `locked`.
    var effectiveLine: SerialSettings {
        settings.settings == .locked ? configuredLine : port.line
    }

    private var configuredLine: SerialSettings {
        registry?.accessory(named: accessoryName)?.configuredSerialSettings ?? port.line
    }

    /// Changes the session's line settings (`follow` only) and applies them now if the session
    /// runs; a change the line refuses is undone, so the answer tells the truth.
    private func changeLine(_ change: (inout SerialSettings) -> Void) {
        guard settings.settings == .follow else { return }
        var next = port.line
        change(&next)
        guard next != port.line else { return }
        guard case .attached = session, let a = registry?.accessory(named: accessoryName) else {
            port.line = next
            port.lineChanged = true
            return
        }
        if let problem = a.applySessionLine(next, for: clientID) {
            registry?.log(.notice, "\(description): cannot set the line to \(next): \(problem)")
            return
        }
        port.line = next
        port.lineChanged = true
    }

    /// A new session (after a replug, too): the client's line settings again.
    func reapplyLine() {
        guard port.lineChanged, settings.settings == .follow, let a = registry?.accessory(named: accessoryName) else {
            return
        }
        if let problem = a.applySessionLine(port.line, for: clientID) {
            registry?.log(.notice, "\(description): cannot set the line to \(port.line): \(problem)")
        }
    }

    /// The session ends: the configured line settings, and no break, before anyone else is served.
    func undoLineChanges() {
        guard port.lineChanged || port.breakOn, let a = registry?.accessory(named: accessoryName) else { return }
        if let problem = a.restoreAfterSession(of: clientID, breakWasOn: port.breakOn) {
            registry?.log(.warning, "\(description): cannot restore the configured line settings: \(problem)")
        }
        port.breakOn = false
    }

    // MARK: - SET-CONTROL

    private func setControl(_ value: UInt8) {
        typealias C = ComPortControl
        switch value {
        // One termios setting covers both directions (CRTSCTS; IXON with IXOFF), so an inbound
        // setting is applied as the outbound one is, and each direction's answer is that setting.
        // DCD, DTR and DSR flow control have no termios setting: answered with the one in force
        // for their direction (what RFC 2217 has a server do with a value it cannot apply).
        case C.requestFlow, C.flowDCD, C.flowDSR:
            send(ComPortReply.byte(Code.setControl, ComPortState.flowCode(effectiveLine.flowControl)))
        case C.flowNone, C.flowXonXoff, C.flowHardware:
            if let flow = ComPortState.flow(code: value) { changeLine { $0.flowControl = flow } }
            send(ComPortReply.byte(Code.setControl, ComPortState.flowCode(effectiveLine.flowControl)))
        case C.requestInboundFlow, C.inboundFlowDTR:
            send(ComPortReply.byte(Code.setControl, ComPortState.inboundFlowCode(effectiveLine.flowControl)))
        case C.inboundFlowNone, C.inboundFlowXonXoff, C.inboundFlowHardware:
            if let flow = ComPortState.flow(inboundCode: value) { changeLine { $0.flowControl = flow } }
            send(ComPortReply.byte(Code.setControl, ComPortState.inboundFlowCode(effectiveLine.flowControl)))
        case C.requestBreak:
            send(ComPortReply.byte(Code.setControl, port.breakOn ? C.breakOn : C.breakOff))
        case C.breakOn, C.breakOff:
            let on = value == C.breakOn
            if case .attached = session, let a = registry?.accessory(named: accessoryName) {
                if let problem = a.setSessionBreak(on, for: clientID) {
                    registry?.log(.notice, "\(description): BREAK \(on ? "on" : "off"): \(problem)")
                } else {
                    port.breakOn = on
                }
            }
            send(ComPortReply.byte(Code.setControl, port.breakOn ? C.breakOn : C.breakOff))
        case C.requestDTR:
            send(ComPortReply.byte(Code.setControl, port.dtr ? C.dtrOn : C.dtrOff))
        case C.requestRTS:
            send(ComPortReply.byte(Code.setControl, port.rts ? C.rtsOn : C.rtsOff))
        case C.dtrOn, C.dtrOff:
            setLine(dtr: value == C.dtrOn, rts: nil, answer: value)
        case C.rtsOn, C.rtsOff:
            setLine(dtr: nil, rts: value == C.rtsOn, answer: value)
        default:
            telnetIgnored()
        }
    }

    /// DTR or RTS through a `control` request inside the session (its token); answered when the
    /// request is, with the line's state then.
    private func setLine(dtr: Bool?, rts: Bool?, answer: UInt8) {
        guard let registry, case .attached(_, let token?) = session else {
            // No session: remembered for the client's queries, nothing reaches a line.
            if let dtr { port.dtr = dtr }
            if let rts { port.rts = rts }
            return send(ComPortReply.byte(Code.setControl, answer))
        }
        let id = nextRequestID
        nextRequestID += 1
        pendingControls[id] = answer
        let params = ControlParams(device: accessoryName, dtr: dtr, rts: rts, session: token)
        registry.handle(Request(id: .int(id), method: .control(params)), from: self)
    }

    /// A `control` request's answer: the SET-CONTROL it served is answered now.
    func controlAnswered(id: RequestID, result: Result<any JSONEncodable & Sendable, RPCError>) {
        guard case .int(let n) = id, let value = pendingControls.removeValue(forKey: n) else { return }
        typealias C = ComPortControl
        switch result {
        case .success:
            if value == C.dtrOn || value == C.dtrOff { port.dtr = value == C.dtrOn }
            if value == C.rtsOn || value == C.rtsOff { port.rts = value == C.rtsOn }
            send(ComPortReply.byte(Code.setControl, value))
        case .failure(let error):
            registry?.log(.notice, "\(description): SET-CONTROL \(value): \(error.message)")
            // The state the line keeps, so that the client sees it was not changed.
            let isDTR = value == C.dtrOn || value == C.dtrOff
            let kept = isDTR ? (port.dtr ? C.dtrOn : C.dtrOff) : (port.rts ? C.rtsOn : C.rtsOff)
            send(ComPortReply.byte(Code.setControl, kept))
        }
    }

    private func telnetIgnored() {
        counters.protocolErrors += 1
    }

    // MARK: - NOTIFY-MODEMSTATE

    /// The modem state byte now (0 when the lines cannot be read), with the changes since the
    /// last report when `sinceLast`.
    func currentModemState(sinceLast: Bool) -> UInt8 {
        let lines = registry?.accessory(named: accessoryName)?.currentLines()
        let bits = lines.map(ComPortState.modemBits) ?? 0
        let byte = ComPortModemState.byte(lines: bits, previous: sinceLast ? lastModemState : nil)
        lastModemState = bits
        return byte
    }

    /// While the session runs and the client's mask asks for some modem line: the state now,
    /// then each change the mask covers (the line poll's interval apart).
    func startModemPollIfAsked() {
        guard telnet != nil, port.modemStateMask != 0, case .attached = session, modemPoll == nil else { return }
        send(ComPortReply.byte(Code.notifyModemState, currentModemState(sinceLast: false) & port.modemStateMask))
        let poll = LinePoll(scheduler: loop, interval: Accessory.linePollInterval)
        modemPoll = poll
        poll.start(
            read: { [weak self] in
                guard let self else { return nil }
                return registry?.accessory(named: accessoryName)?.currentLines()
            },
            changed: { [weak self] lines in
                guard let self else { return }
                let bits = ComPortState.modemBits(lines)
                guard (bits ^ (lastModemState ?? bits)) & port.modemStateMask != 0 else {
                    lastModemState = bits
                    return
                }
                let byte = ComPortModemState.byte(lines: bits, previous: lastModemState)
                lastModemState = bits
                send(ComPortReply.byte(Code.notifyModemState, byte & port.modemStateMask))
            }
        )
    }

    func stopModemPoll() {
        modemPoll?.stop()
        modemPoll = nil
    }
}
