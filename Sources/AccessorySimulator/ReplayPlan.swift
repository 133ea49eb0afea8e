import TrafficTrace

/// The `replay` personality's input: the recording, how to play it, and the ledger its outcome
/// goes to. Equal when it is the same replay (the same ledger).
///
/// Threading: a value. Any thread.
package struct ReplayPlan: Sendable, Equatable {
    package var recording: Recording
    package var options: ReplayOptions
    /// Where the recording was read from, for messages.
    package var file: String
    package let ledger: ReplayLedger

    package init(recording: Recording, options: ReplayOptions, file: String, ledger: ReplayLedger) {
        self.recording = recording
        self.options = options
        self.file = file
        self.ledger = ledger
    }

    /// Reads the recording and the rules file (if any). Any thread.
    package static func load(
        file: String,
        rulesFile: String?,
        options: ReplayOptions,
        ledger: ReplayLedger
    ) throws(SimulatorError) -> ReplayPlan {
        let recording: Recording
        do throws(RecordingError) {
            recording = try RecordingFile.read(path: file)
        } catch {
            throw .script(file: file, line: error.line, message: error.message)
        }
        var options = options
        if let rulesFile { options.rules += try ReplayRules.load(path: rulesFile) }
        let plan = ReplayPlan(recording: recording, options: options, file: file, ledger: ledger)
        try ReplayMatcher.check(options.rules)
        return plan
    }

    package static func == (a: ReplayPlan, b: ReplayPlan) -> Bool { a.ledger === b.ledger }
}
