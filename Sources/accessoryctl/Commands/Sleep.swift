import AccessoryClient
import ArgumentParser

/// `sleep MS` in a `lock` session's script: a pause, the lock still held.
///
/// Threading: runs on the session's task.
struct Sleep: AsyncParsableCommand, SessionStep {
    static let configuration = CommandConfiguration(abstract: "Pause the script (lock sessions only).")

    @Argument(help: ArgumentHelp("How long.", valueName: "ms"))
    var milliseconds: Int64

    func validate() throws { try Milliseconds.check(milliseconds, "MS") }

    func execute(on connection: AccessoryConnection, json: Bool) async throws(ClientError) {
        try? await Task.sleep(for: .milliseconds(milliseconds))
    }
}

/// The commands a `lock` session's script lines may use.
///
/// Threading: runs on the session's task.
struct SessionLine: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "<script line>",
        subcommands: [Transact.self, Write.self, Read.self, Status.self, List.self, Sleep.self]
    )
}
