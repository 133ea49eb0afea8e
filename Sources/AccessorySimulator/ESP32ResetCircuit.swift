import IOLoop
import Transports

/// How a simulated ESP32 is strapped: what its boot pin (GPIO0) shows when nothing drives it.
///
/// Threading: a value. Any thread.
public enum ESP32Boot: String, Sendable, CaseIterable {
    /// GPIO0 pulled up: the chip runs its application after power-on, and enters the ROM loader
    /// only when a reset ends with DTR holding GPIO0 low (esptool's bootloader reset).
    case flash
    /// GPIO0 held low (the BOOT button held down): every start enters the ROM loader, for hosts
    /// that cannot reach the lines (`esptool --before no-reset`).
    case download
}

/// The usual ESP32 board auto-reset circuit, driven by the host's DTR and RTS: two transistors
/// pull EN (the chip's reset) low while RTS alone is asserted and GPIO0 low while DTR alone is;
/// with both lines equal both pins are released. EN has a capacitor: released, it rises only
/// after ``enRiseTime``, and GPIO0 is sampled then. That delay is what lets esptool's classic
/// reset work with one line changed at a time: its step through DTR = RTS = asserted releases EN
/// for a moment, which the capacitor bridges until RTS falls and DTR alone holds GPIO0 low.
///
/// Over RFC 2217 that moment is long: pyserial's client waits for each SET-CONTROL's answer by
/// polling every 50 ms, so both lines stay up for 50 ms or more, and GPIO0 is then held low for
/// about 150 ms (two more answers and esptool's 50 ms): EN must rise between 50 and 200 ms after
/// its release. ``enRiseTime`` of 125 ms, the middle, is a board with a large EN capacitor; a
/// board whose EN rises faster boots its application there, which is why esptool also ships an
/// RFC 2217 server that resets on its side.
///
/// Threading: a value, owned by its responder (loop thread only).
struct ESP32ResetCircuit {
    /// How long EN takes to rise once released (the board's RC delay; see above).
    static let enRiseTime: Duration = .milliseconds(125)

    let boot: ESP32Boot
    private(set) var lines = ModemLineReport(dtr: false, rts: false)
    /// While EN is held low: the chip is in reset.
    private(set) var inReset = false
    /// When released EN reaches the chip's threshold (the chip starts then), if it is rising.
    private(set) var startTime: LoopInstant?

    init(boot: ESP32Boot) { self.boot = boot }

    /// EN held low by the lines.
    var enHeldLow: Bool { lines.rts && !lines.dtr }

    /// GPIO0 low (the ROM loader is chosen if the chip starts now).
    var bootPinLow: Bool { boot == .download || (lines.dtr && !lines.rts) }

    /// Takes new line levels at `now`.
    mutating func set(_ report: ModemLineReport, at now: LoopInstant) {
        lines = report
        if enHeldLow {
            inReset = true
            startTime = nil
        } else if inReset && startTime == nil {
            startTime = now + Self.enRiseTime
        }
    }

    /// Whether the chip starts at `now` (EN has risen); then it is out of reset.
    mutating func starts(at now: LoopInstant) -> Bool {
        guard let t = startTime, t <= now else { return false }
        startTime = nil
        inReset = false
        return true
    }
}
