import AttachTerminal
import ControlProtocol
import IOLoop
import JSONCodec
import SystemCalls

/// What an interactive `attach --…` asks for.
///
/// Threading: a value. Any thread.
struct TerminalSettings {
    var escape = EscapeKey.standard
    var map = CharacterMap.none
    var localEcho = false
    var timestamps = false
    var hex = false
    var logPath: String?
    /// The local daemon's socket, for the line requests' side connection; nil over `--host`.
    var socketPath: String?
    var device = ""
}

/// Why an interactive session could not start.
///
/// Threading: a value. Any thread.
struct SessionStartError: Error, CustomStringConvertible {
    let description: String
}

/// The interactive side of `attach` when standard input is a terminal: the escape key and its
/// commands, the mappings, local echo, the hexadecimal view, timestamps, the log and the
/// statistics. The byte pump hands it what is typed and what the device sends; it answers what
/// goes on to the device and to the screen.
///
/// Threading: the pump's loop thread.
final class TerminalSession: PumpTerminal {
    private var settings: TerminalSettings
    private var keyboard: KeyboardDecoder
    private var screen: ScreenRenderer
    private var statistics = SessionStatistics()
    private let started = MonotonicClock.nowNanoseconds()
    private var log: SessionLogFile?
    private let terminal: RawTerminal
    private var control: ControlSideChannel?
    private var quit: () -> Void = {}
    /// DTR and RTS as this session last set them; the kernel raises both when a port opens.
    private var dtr = true
    private var rts = true

    /// Saves the terminal's state and opens `--log` (if given) before the session starts, so that
    /// a file that cannot be written is an error before anything is sent.
    init(settings: TerminalSettings) throws(SessionStartError) {
        self.settings = settings
        keyboard = KeyboardDecoder(escape: settings.escape)
        screen = ScreenRenderer(hex: settings.hex, timestamps: settings.timestamps)
        do throws(SyscallError) {
            terminal = try RawTerminal(fd: 0)
        } catch {
            throw SessionStartError(description: "cannot read the terminal's settings: \(error)")
        }
        guard let path = settings.logPath else { return }
        do throws(SyscallError) {
            log = try SessionLogFile(path: path)
        } catch {
            throw SessionStartError(description: "cannot open the log file \(path): \(error)")
        }
    }

    /// Raw mode starts once the attach is answered: while it waits in the accessory's queue,
    /// Ctrl-C still interrupts.
    func attached(loop: IOLoop, session: String?, quit: @escaping () -> Void) {
        self.quit = quit
        do throws(SyscallError) {
            try terminal.enterRawMode()
        } catch {
            message("cannot put the terminal in raw mode: \(error)")
            quit()
            return
        }
        control = settings.socketPath.map {
            ControlSideChannel(loop: loop, socketPath: $0, device: settings.device, session: session)
        }
        message("attached to \(settings.device); \(settings.escape) ? for help, \(settings.escape) q to quit")
    }

    func fromKeyboard(_ bytes: [UInt8]) -> [UInt8] {
        var toDevice: [UInt8] = []
        for action in keyboard.feed(bytes) {
            switch action {
            case .send(let typed):
                let mapped = settings.map.toDevice(typed)
                toDevice += mapped
                if settings.localEcho { show(screen.render(mapped, at: now)) }
            case .command(let command):
                run(command)
            case .unknown(let key):
                let shown =
                    key >= 0x20 && key < 0x7F ? "'\(String(UnicodeScalar(key)))'" : "0x\(String(key, radix: 16))"
                message("\(settings.escape) \(shown) is not a command; \(settings.escape) ? for help")
            }
        }
        statistics.bytesSent += toDevice.count
        log?.record(toDevice, .toDevice, at: now)
        return toDevice
    }

    func fromDevice(_ bytes: [UInt8]) -> [UInt8] {
        statistics.bytesReceived += bytes.count
        let time = now
        log?.record(bytes, .fromDevice, at: time)
        // The hexadecimal view shows the bytes as they came: that is what it is for.
        return screen.render(screen.hex ? bytes : settings.map.toScreen(bytes), at: time)
    }

    func finished() {
        // Whatever comes next starts at the left edge, even after a bare LF from the device.
        show(screen.breakLine() + [0x0D])
        log?.close()
        log = nil
    }

    /// Puts the terminal back as it was before the session.
    func restoreTerminal() {
        terminal.restore()
    }

    // MARK: - Commands

    private func run(_ command: EscapeCommand) {
        switch command {
        case .quit:
            quit()
        case .help:
            message(keyboard.help.joined(separator: "\r\n"))
        case .statistics:
            message(statistics.summary(elapsed: elapsed))
        case .toggleHex:
            show(screen.setHex(!screen.hex))
            message(screen.hex ? "hexadecimal view" : "text view")
        case .toggleTimestamps:
            screen.setTimestamps(!screen.timestamps)
            message(screen.timestamps ? "timestamps on" : "timestamps off")
        case .toggleLog:
            toggleLog()
        case .sendBreak:
            sendControl(["break_ms": 250], done: "break sent (250 ms)")
        case .toggleDTR:
            sendControl(["dtr": .bool(!dtr)], done: "DTR \(dtr ? "off" : "on")") { [unowned self] in dtr.toggle() }
        case .toggleRTS:
            sendControl(["rts": .bool(!rts)], done: "RTS \(rts ? "off" : "on")") { [unowned self] in rts.toggle() }
        }
    }

    private func toggleLog() {
        if let open = log {
            open.close()
            log = nil
            message("log to \(open.path) stopped")
            return
        }
        let path = settings.logPath ?? "accessoryctl-\(settings.device).log"
        do throws(SyscallError) {
            log = try SessionLogFile(path: path)
            message("logging to \(path)")
        } catch {
            message("cannot log to \(path): \(error)")
        }
    }

    private func sendControl(_ params: JSONObject, done: String, onSuccess: @escaping () -> Void = {}) {
        guard let control else {
            message("break, DTR and RTS are not available over --host (use accessoryctl line on the remote host)")
            return
        }
        control.send(params) { [unowned self] failure in
            if failure == nil { onSuccess() }
            message(failure ?? done)
        }
    }

    // MARK: - The screen

    private var now: WallTime {
        let t = WallClock.localNow()
        return WallTime(
            year: t.year,
            month: t.month,
            day: t.day,
            hour: t.hour,
            minute: t.minute,
            second: t.second,
            millisecond: t.millisecond
        )
    }

    private var elapsed: Duration { .nanoseconds(Int64(MonotonicClock.nowNanoseconds() - started)) }

    /// A line of the program's own, on a line of its own, set apart from the device's output.
    private func message(_ text: String) {
        show(screen.breakLine() + Array("\r[accessoryctl] \(text)\r\n".utf8))
    }

    private func show(_ bytes: [UInt8]) {
        guard !bytes.isEmpty else { return }
        try? FileIO.writeAll(1, bytes)
    }
}
