import SystemCalls

/// The command that `ssh` runs on the remote host, before `dial-stdio`: `accessoryctl` unless
/// given (an install in another prefix: `/opt/accessoryd/bin/accessoryctl`; another socket:
/// `accessoryctl --socket /run/lab/accessoryd.sock`).
///
/// `ssh` hands the command to the remote user's shell as one line, so each word is checked to
/// hold nothing a shell reads specially: letters, digits and `/ . _ + = : , @ % -` only,
/// words separated by spaces.
///
/// Threading: a value. Any thread.
package struct RemoteCommand: Sendable, Hashable, CustomStringConvertible {
    package static let defaultCommand = "accessoryctl"
    /// The variable that names it when the caller does not.
    package static let environmentVariable = "ACCESSORYD_REMOTE_COMMAND"

    package let words: [String]

    /// Checks `text` (words separated by spaces).
    package init(_ text: String) throws(SSHDestinationError) {
        let words = text.split(separator: " ").map(String.init)
        guard !words.isEmpty else { throw SSHDestinationError(text, "the remote command is empty") }
        let allowed: Set<Character> = ["/", ".", "_", "+", "=", ":", ",", "@", "%", "-"]
        for word in words where !word.allSatisfy({ $0.isASCIIAlphanumeric || allowed.contains($0) }) {
            throw SSHDestinationError(
                text,
                "the remote command's words may hold only letters, digits and / . _ + = : , @ % - "
                    + "(the remote shell reads the line), not \"\(word)\""
            )
        }
        self.words = words
    }

    /// `explicit`, else `$ACCESSORYD_REMOTE_COMMAND` when not empty, else `accessoryctl`.
    package static func resolve(explicit: String? = nil) throws(SSHDestinationError) -> RemoteCommand {
        if let explicit { return try RemoteCommand(explicit) }
        if let fromEnvironment = ProcessEnvironment.value(environmentVariable), !fromEnvironment.isEmpty {
            return try RemoteCommand(fromEnvironment)
        }
        return try RemoteCommand(defaultCommand)
    }

    package var description: String { words.joined(separator: " ") }
}
