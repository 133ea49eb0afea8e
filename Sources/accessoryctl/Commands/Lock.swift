import AccessoryClient
import ArgumentParser
import ControlProtocol

/// `accessoryctl lock DEVICE [-- COMMAND…]`: a scripted session under an exclusive lock.
///
/// Threading: runs on the main task; script lines run one after the other on one connection.
struct Lock: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Lock an accessory, run a script of commands on it, then unlock.",
        discussion: """
            Takes an exclusive lock on DEVICE, runs the script's commands one after the other \
            on the same connection, then unlocks. Other clients' requests for DEVICE wait until \
            the session ends, so a multi-step exchange is never interleaved with theirs.

            The script is the arguments after --, one command each, or else standard input, one \
            command per line. Commands are written as on the command line without \
            "accessoryctl": transact, write, read, status, list, and "sleep MS" to pause. Quote \
            with '…' or "…"; blank lines and lines starting with # are skipped.

            The session stops at the first command that fails (unless --keep-going), unlocks, \
            and exits with that command's status. The lock also ends when its lease runs out \
            (--lease) or when the connection closes (accessoryctl killed), so a crashed script \
            never leaves DEVICE locked.

            Examples:
              accessoryctl lock modem -- 'transact modem AT+CFUN=1' 'sleep 500'
              accessoryctl lock modem --lease 10000 --echo < setup.script
            """
    )

    @OptionGroup var global: GlobalOptions

    @Argument(help: "The accessory to lock.", completion: DeviceCompletion.kind)
    var device: String

    @Option(help: ArgumentHelp("How long the lock lasts at most (default: the daemon's).", valueName: "ms"))
    var lease: Int64?

    @Option(help: ArgumentHelp("How long to wait for the lock (default: the daemon's).", valueName: "ms"))
    var timeout: Int64?

    @Flag(help: "Run the remaining commands after one fails (the exit status is the first failure's).")
    var keepGoing = false

    @Flag(help: "Print each command (\"> transact modem AT\") before its output.")
    var echo = false

    @Argument(parsing: .postTerminator, help: "The script: one command per argument (else read from stdin).")
    var commands: [String] = []

    func validate() throws {
        try Milliseconds.check(lease, "--lease")
        try Milliseconds.check(timeout, "--timeout")
    }

    mutating func run() async throws {
        let session = self
        var status: Int32 = 0
        try await Runner.run(global) { (connection) throws(ClientError) in
            try await connection.lock(device: session.device, timeout: session.timeout?.ms, lease: session.lease?.ms)
            status = await session.runScript(on: connection)
            do throws(ClientError) {
                try await connection.unlock(device: session.device)
            } catch {
                guard status != 0 else { throw error }
                Output.error(ExitStatus.message(for: error, context: "unlock"))
            }
        }
        if status != 0 { throw ExitCode(status) }
    }

    /// Runs every script line; returns 0, or the first failure's exit status.
    private func runScript(on connection: AccessoryConnection) async -> Int32 {
        var firstFailure: Int32 = 0
        var number = 0
        while let line = nextLine(&number) {
            let status = await runLine(line, number: number, on: connection)
            if status != 0 && firstFailure == 0 { firstFailure = status }
            if status != 0 && !keepGoing { break }
        }
        return firstFailure
    }

    /// The next script line (1-based `number`), from the arguments or standard input.
    private func nextLine(_ number: inout Int) -> String? {
        number += 1
        if !commands.isEmpty { return number <= commands.count ? commands[number - 1] : nil }
        return readLine(strippingNewline: true)
    }

    private func runLine(_ line: String, number: Int, on connection: AccessoryConnection) async -> Int32 {
        let context = "line \(number) (\(line.trimmingBlanks))"
        let words: [String]
        do throws(CommandLineWords.SplitError) {
            words = try CommandLineWords.split(line)
        } catch {
            Output.error("error: \(context): \(error)")
            return ExitStatus.usage
        }
        guard !words.isEmpty else { return 0 }
        if echo { Output.line("> " + words.joined(separator: " ")) }
        let step: any SessionStep
        do {
            let parsed = try await SessionLine.asyncParseAsRoot(words)
            guard let command = parsed as? any SessionStep else {
                Output.error("error: \(context): a line must start with transact, write, read, status, list or sleep")
                return ExitStatus.usage
            }
            step = command
        } catch {
            if SessionLine.exitCode(for: error) == .success {
                Output.line(SessionLine.fullMessage(for: error))
                return 0
            }
            Output.error("error: \(context): " + SessionLine.message(for: error))
            return ExitStatus.usage
        }
        do throws(ClientError) {
            try await step.execute(on: connection, json: global.json || step.printsJSON)
        } catch {
            Output.error(ExitStatus.message(for: error, context: context))
            return ExitStatus.code(for: error)
        }
        return 0
    }
}

extension Int64 {
    /// This many milliseconds.
    fileprivate var ms: Duration { .milliseconds(self) }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    fileprivate var trimmingBlanks: Substring {
        let blanks: Set<Character> = [" ", "\t"]
        guard let first = firstIndex(where: { !blanks.contains($0) }) else { return "" }
        let last = lastIndex(where: { !blanks.contains($0) })!
        return self[first...last]
    }
}
