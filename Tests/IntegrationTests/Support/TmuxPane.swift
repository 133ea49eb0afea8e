import AccessoryTestSupport
import Glibc
import SystemCalls

/// A shell in a detached tmux session of its own (its own server socket in the test's folder),
/// for driving interactive programs as a person would: keys in with `send-keys`, the screen out
/// with `capture-pane`. ``finish()`` kills that server only.
///
/// Threading: the test's thread.
final class TmuxPane {
    /// Why the tests that need it are skipped.
    static let missing = ExternalProgram.path("tmux") == nil ? "tmux is not installed (Debian package tmux)" : nil

    private let tmux: String
    private let socket: String
    private let directory: TemporaryDirectory
    private var commandCount = 0
    private var finished = false

    /// Starts `sh` in a 150×40 pane, with a `sh$ ` prompt.
    init(in directory: TemporaryDirectory) throws {
        tmux = try ExternalProgram.path("tmux").orThrow(HarnessError("tmux is not installed"))
        self.directory = directory
        socket = directory.file("tmux.sock")
        try run(
            [
                "-f", "/dev/null", "new-session", "-d", "-x", "150", "-y", "40", "env", "-i", "PS1=sh$ ", "TERM=xterm",
                "PATH=/usr/bin:/bin", "/bin/sh",
            ]
        )
        guard waitFor({ $0.contains("sh$") }) != nil else { throw HarnessError("no shell prompt in tmux:\n\(screen)") }
    }

    /// Types `text` as it is (no key names).
    func type(_ text: String) throws { try run(["send-keys", "-t", "0", "-l", text]) }

    /// Presses keys by tmux's names: `Enter`, `C-c`, `C-t`.
    func press(_ keys: String...) throws { try run(["send-keys", "-t", "0"] + keys) }

    /// Types a shell command line and presses Enter.
    func command(_ line: String) throws {
        try type(line)
        try press("Enter")
    }

    /// What the pane shows now, lines joined with newlines (trailing spaces removed).
    var screen: String { (try? run(["capture-pane", "-p", "-t", "0"])) ?? "" }

    /// Polls the screen (every 20 ms, at most `seconds`) until `condition` holds; returns that
    /// screen, or nil on time out.
    @discardableResult
    func waitFor(seconds: Double = 10, _ condition: (String) -> Bool) -> String? {
        let deadline = Deadline(seconds: seconds)
        while true {
            let now = screen
            if condition(now) { return now }
            if deadline.hasPassed { return nil }
            usleep(20_000)
        }
    }

    /// The pid of the pane's shell's child (the program running in the foreground), if any.
    var foregroundChild: pid_t? {
        guard let text = try? run(["display-message", "-p", "-t", "0", "#{pane_pid}"]),
            let shell = pid_t(text.split(separator: "\n").first ?? "")
        else { return nil }
        return FileIO.readText("/proc/\(shell)/task/\(shell)/children")
            .split(separator: " ").compactMap { pid_t($0.trimmingCharacters("\n")) }.first
    }

    /// Kills this test's tmux server (and so its shell and what runs in it).
    func finish() {
        guard !finished else { return }
        finished = true
        _ = try? run(["kill-server"])
    }

    deinit { finish() }

    /// Runs `tmux -S <socket> arguments`, waits for it (at most 10 s), returns its output.
    @discardableResult
    private func run(_ arguments: [String]) throws -> String {
        commandCount += 1
        let output = directory.file("tmux-\(commandCount).out")
        let child = try ChildRun(
            label: "tmux",
            executable: tmux,
            arguments: ["-S", socket] + arguments,
            stdoutPath: output,
            stderrPath: output
        )
        guard let ended = child.wait(seconds: 10) else {
            child.kill()
            throw HarnessError("tmux \(arguments) did not finish within 10 s")
        }
        let text = child.stdout
        try? FileIO.unlink(output)
        guard ended == .exited(0) else { throw HarnessError("tmux \(arguments): \(ended): \(text)") }
        return text
    }
}

extension Optional {
    func orThrow(_ error: @autoclosure () -> any Error) throws -> Wrapped {
        guard let value = self else { throw error() }
        return value
    }
}

extension Substring {
    func trimmingCharacters(_ set: String) -> String {
        String(drop { set.contains($0) }.reversed().drop { set.contains($0) }.reversed())
    }
}
