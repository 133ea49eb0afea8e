import ControlProtocol
import IOLoop
import Transports

/// `control`: DTR/RTS, a timed sequence of them, a break. It runs as an ordinary operation of
/// the accessory's queue, so it starts only once the request before it (another client's
/// `transact`) has finished, and the next waits until the whole sequence has run.
///
/// The steps run one after another (``ControlSequence``, on the loop's timers). A failure stops
/// the sequence and is the answer; so does a cancel (the lines stay as the last step set them).
/// The answer is `{device, lines}`, the lines read back at the end (null where the driver gives
/// none). Device loop only.
extension RequestOperation {
    /// What `params` asks for, in order: `dtr`/`rts`, the sequence, the break.
    static func controlSteps(_ params: ControlParams) -> [ControlSequence.Step] {
        var steps: [ControlSequence.Step] = []
        if params.dtr != nil || params.rts != nil {
            steps.append(.setLines(dtr: params.dtr, rts: params.rts, holdMs: 0))
        }
        for step in params.sequence {
            steps.append(.setLines(dtr: step.dtr, rts: step.rts, holdMs: step.ms))
        }
        if let ms = params.breakMs { steps.append(.sendBreak(ms: ms)) }
        return steps
    }

    func executeControl(_ params: ControlParams) {
        let accessory = self.accessory
        if let refusal = accessory.linesUnavailable(nil) { return finish(error: refusal) }
        guard let port = accessory.port else {
            return finish(error: AccessoryError.io(device: accessory.name, reason: "the accessory is not open"))
        }
        // A cancel (or the accessory going away) ends the request between steps.
        ControlSequence.run(
            Self.controlSteps(params)[...],
            on: port,
            scheduler: loop,
            isLive: { [self] in state == .executing },
            did: { [self] change in
                accessory.tap?.record(control: change, client: origin.clientID, request: requestID)
            },
            ended: { [self] end in controlEnded(end) }
        )
    }

    private func controlEnded(_ end: ControlSequence.End) {
        let accessory = self.accessory
        switch end {
        case .done:
            controlResult = DeviceLines(
                device: accessory.name,
                lines: accessory.currentLines().map(Accessory.lineState)
            )
            finish()
        case .linesUnsupported:
            finish(error: accessory.linesUnavailable(.unsupported)!)
        case .breakUnsupported:
            finish(
                error: AccessoryError.io(
                    device: accessory.name,
                    reason: "\(accessory.devicePath ?? accessory.name) cannot send a break (ENOTTY)"
                )
            )
        case .failed(let error):
            finish(error: AccessoryError.io(device: accessory.name, reason: error.description))
        }
    }
}
