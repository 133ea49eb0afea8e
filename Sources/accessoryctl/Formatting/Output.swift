import SystemCalls

/// Standard output and error, unbuffered: each line reaches a pipe as soon as it is printed (so
/// `accessoryctl monitor | grep …` sees every event at once, and nothing is lost when a signal
/// ends the process).
///
/// Threading: any thread; each call writes one whole line.
enum Output {
    /// Writes `text` and a newline to standard output.
    static func line(_ text: String) { write(1, text + "\n") }

    /// Writes each of `lines` to standard output.
    static func lines(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        write(1, lines.joined(separator: "\n") + "\n")
    }

    /// Writes `text` and a newline to standard error.
    static func error(_ text: String) { write(2, text + "\n") }

    private static func write(_ fd: CInt, _ text: String) {
        // A reader that went away (EPIPE) is not worth a second error message.
        try? FileIO.writeAll(fd, Array(text.utf8))
    }
}
