import ControlProtocol
import IOLoop
import Transports

/// The steps of a `control` request, run on a serial port one after another: lines set (DTR
/// before RTS) and held for a step's time, breaks sent. Holds and breaks run on timers, never
/// blocking the loop. A failure or an unsupported control ends the sequence; so does `isLive`
/// turning false between steps (a cancel, the accessory gone): the lines then stay as the last
/// step set them.
///
/// Its hold timers go through a ``LoopScheduler`` (the port's break timer through the port's
/// own), so its tests run on virtual time.
///
/// Device loop only.
enum ControlSequence {
    /// One thing to do to the line, then how long to leave it so.
    ///
    /// Threading: a value. Any thread.
    enum Step: Equatable {
        case setLines(dtr: Bool?, rts: Bool?, holdMs: Int64)
        case sendBreak(ms: Int64)
    }

    /// How a sequence ended.
    ///
    /// Threading: a value. Any thread.
    enum End: Equatable {
        /// Every step ran.
        case done
        /// The port has no modem lines (`ENOTTY`).
        case linesUnsupported
        /// The port cannot send a break (`ENOTTY`).
        case breakUnsupported
        case failed(TransportError)
    }

    /// Runs `steps` on `port`, holding on `scheduler`'s timers; `ended` is told once unless
    /// `isLive` turned false first (then never). `did` is told each line set and each break
    /// sent (as it ends), for the traffic trace.
    static func run(
        _ steps: ArraySlice<Step>,
        on port: SerialPort,
        scheduler: any LoopScheduler,
        isLive: @escaping () -> Bool,
        did: @escaping (LineControl) -> Void = { _ in },
        ended: @escaping (End) -> Void
    ) {
        guard isLive() else { return }
        guard let step = steps.first else { return ended(.done) }
        let next = { run(steps.dropFirst(), on: port, scheduler: scheduler, isLive: isLive, did: did, ended: ended) }
        switch step {
        case .setLines(let dtr, let rts, let holdMs):
            do throws(TransportError) {
                // DTR before RTS, one ioctl each, as esptool does: an ESP32 board's auto-reset
                // circuit reads both lines equal as "run", so the order of a step's two changes
                // decides what the chip sees between them.
                for (line, level) in [(ModemLines.dtr, dtr), (.rts, rts)] {
                    guard let level else { continue }
                    if try port.setModemLines(line, asserted: level) == .unsupported { return ended(.linesUnsupported) }
                    did(line == .dtr ? .dtr(level) : .rts(level))
                }
            } catch {
                return ended(.failed(error))
            }
            guard holdMs > 0 else { return next() }
            scheduler.scheduleTimer(after: .milliseconds(holdMs)) { next() }
        case .sendBreak(let ms):
            port.sendBreak(for: .milliseconds(ms)) { outcome in
                guard isLive() else { return }
                switch outcome {
                case .success(.done):
                    did(.breakSent(milliseconds: ms))
                    next()
                case .success(.unsupported): ended(.breakUnsupported)
                case .failure(let error): ended(.failed(error))
                }
            }
        }
    }
}
