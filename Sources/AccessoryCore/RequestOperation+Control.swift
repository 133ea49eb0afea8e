import ControlProtocol
import IOLoop
import Transports

/// `control`: DTR/RTS, a timed sequence of them, a break. It runs as an ordinary operation of
/// the accessory's queue, so it starts only once the request before it (another client's
/// `transact`) has finished, and the next waits until the whole sequence has run.
///
/// The steps run one after another on loop timers (never blocking the loop). A failure stops the
/// sequence and is the answer; so does a cancel (the lines stay as the last step set them). The
/// answer is `{device, lines}`, the lines read back at the end (null where the driver gives
/// none). Device loop only.
extension RequestOperation {
    /// One thing to do to the line, then how long to leave it so.
    enum ControlAction {
        case setLines(dtr: Bool?, rts: Bool?, holdMs: Int64)
        case sendBreak(ms: Int64)
    }

    /// What `params` asks for, in order: `dtr`/`rts`, the sequence, the break.
    static func controlActions(_ params: ControlParams) -> [ControlAction] {
        var actions: [ControlAction] = []
        if params.dtr != nil || params.rts != nil {
            actions.append(.setLines(dtr: params.dtr, rts: params.rts, holdMs: 0))
        }
        for step in params.sequence {
            actions.append(.setLines(dtr: step.dtr, rts: step.rts, holdMs: step.ms))
        }
        if let ms = params.breakMs { actions.append(.sendBreak(ms: ms)) }
        return actions
    }

    func executeControl(_ params: ControlParams) {
        let accessory = self.accessory
        if let refusal = accessory.linesUnavailable(nil) { return finish(error: refusal) }
        guard let port = accessory.port else {
            return finish(error: AccessoryError.io(device: accessory.name, reason: "the accessory is not open"))
        }
        runControl(Self.controlActions(params)[...], on: port)
    }

    private func runControl(_ actions: ArraySlice<ControlAction>, on port: SerialPort) {
        // A cancel (or the accessory going away) ended the request between steps.
        guard state == .executing else { return }
        let accessory = self.accessory
        guard let action = actions.first else {
            controlResult = DeviceLines(
                device: accessory.name,
                lines: accessory.currentLines().map(Accessory.lineState)
            )
            return finish()
        }
        let rest = actions.dropFirst()
        switch action {
        case .setLines(let dtr, let rts, let holdMs):
            do throws(TransportError) {
                // DTR before RTS, one ioctl each, as esptool does: an ESP32 board's auto-reset
                // circuit reads both lines equal as "run", so the order of a step's two changes
                // decides what the chip sees between them.
                for (line, level) in [(ModemLines.dtr, dtr), (.rts, rts)] {
                    guard let level else { continue }
                    if try port.setModemLines(line, asserted: level) == .unsupported {
                        return finish(error: accessory.linesUnavailable(.unsupported)!)
                    }
                }
            } catch {
                return finish(error: AccessoryError.io(device: accessory.name, reason: error.description))
            }
            guard holdMs > 0 else { return runControl(rest, on: port) }
            loop.scheduleTimer(after: .milliseconds(holdMs)) { [self] in runControl(rest, on: port) }
        case .sendBreak(let ms):
            port.sendBreak(for: .milliseconds(ms)) { [self] outcome in
                guard state == .executing else { return }
                switch outcome {
                case .success(.done):
                    runControl(rest, on: port)
                case .success(.unsupported):
                    finish(
                        error: AccessoryError.io(
                            device: accessory.name,
                            reason: "\(accessory.devicePath ?? accessory.name) cannot send a break (ENOTTY)"
                        )
                    )
                case .failure(let error):
                    finish(error: AccessoryError.io(device: accessory.name, reason: error.description))
                }
            }
        }
    }
}
