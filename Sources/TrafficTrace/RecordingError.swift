/// Why a recording (or a replay's rules file) could not be read: the line and what is wrong
/// with it. Line 0 means the file as a whole (it could not be opened, it is empty).
///
/// Threading: a value. Any thread.
package struct RecordingError: Error, Sendable, Equatable, CustomStringConvertible {
    package var line: Int
    package var message: String

    package init(line: Int, _ message: String) {
        self.line = line
        self.message = message
    }

    package var description: String { line > 0 ? "line \(line): \(message)" : message }
}
