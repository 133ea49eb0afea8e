import ControlProtocol

/// Prints `monitor`'s events: `DEVICE: text` for data (a hex dump, indented, when not UTF-8),
/// `DEVICE: state STATE (reason)` for state changes; or the daemon's notification line with
/// `--json`.
///
/// Threading: a value; used from one task.
struct EventPrinter: Sendable {
    let json: Bool
    let timestamps: Bool
    let start = ContinuousClock.now

    func print(_ event: DeviceEvent) {
        if json { return Output.line(Self.jsonLine(event)) }
        let stamp = timestamps ? "[\(Self.seconds(since: start))] " : ""
        switch event {
        case .data(let device, let frame):
            if let text = frame.text {
                Output.line(stamp + device + ": " + FrameText.escaped(text))
            } else {
                Output.lines(
                    [stamp + device + ": (\(frame.bytes.count) bytes)"] + HexDump.lines(frame.bytes).map { "  " + $0 }
                )
            }
        case .state(let device, let state, let reason):
            Output.line(stamp + device + ": state " + state.rawValue + (reason.isEmpty ? "" : " (\(reason))"))
        case .traffic(let record):
            // Only with --event traffic; `accessoryctl trace` is the command made for it.
            let lines = TrafficPrinter(hex: false, timestamps: false).lines(record)
            Output.lines(lines.map { stamp + record.device + ": " + $0 })
        }
    }

    /// The notification as the daemon sends it, without the trailing newline.
    static func jsonLine(_ event: DeviceEvent) -> String {
        var buffer: [UInt8] = []
        switch event {
        case .data(let device, let frame): ResponseEncoder.deviceData(device: device, frame: frame.bytes, into: &buffer)
        case .state(let device, let state, let reason):
            ResponseEncoder.deviceState(device: device, state: state, reason: reason, into: &buffer)
        case .traffic(let record):
            return TrafficPrinter.jsonLine(record)
        }
        if buffer.last == UInt8(ascii: "\n") { buffer.removeLast() }
        return String(decoding: buffer, as: UTF8.self)
    }

    /// `12.345`: seconds with milliseconds.
    private static func seconds(since start: ContinuousClock.Instant) -> String {
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        let milliseconds = attoseconds / 1_000_000_000_000_000
        let fraction = String(milliseconds)
        return "\(seconds)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}
