import Glibc
import SystemCalls
import Testing

/// Runs the built `accessoryctl` as a child process and collects what it printed.
///
/// Threading: the test's thread; each run owns its child (signalled and reaped by pid).
enum CtlProcess {
    /// What a run printed, and how it ended.
    ///
    /// Threading: a value. Any thread.
    struct Outcome: CustomStringConvertible {
        var status: CInt
        var stdout: String
        var stderr: String

        var stdoutLines: [String] {
            stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        }

        var description: String { "status \(status)\n--- stdout\n\(stdout)--- stderr\n\(stderr)" }
    }

    /// `accessoryctl` next to the running test binary (the build products folder), if built.
    static let executable: String? = {
        guard let me = try? FileIO.readLink("/proc/self/exe") else { return nil }
        var folder = me
        while let last = folder.last, last != "/" { folder.removeLast() }
        let candidate = folder + "accessoryctl"
        return access(candidate, X_OK) == 0 ? candidate : nil
    }()

    /// Why the tests that run it are skipped, when it is not built.
    static let notBuilt = "accessoryctl is not built next to the tests (swift build --product accessoryctl)"

    /// Runs `arguments` (after `accessoryctl`, or after `prefix` + `accessoryctl` to run it
    /// through `setpriv`), with `stdin` as standard input and `environment` (nil: inherited).
    /// `whileRunning` is called once with the pid after the start. Kills it after `seconds`.
    /// Polls with `Task.sleep`, so a waiting test never holds one of the few cooperative threads.
    static func run(
        _ arguments: [String],
        prefix: [String] = [],
        stdin: String = "",
        environment: [String]? = nil,
        seconds: Double = 20,
        whileRunning: (pid_t) async -> Void = { _ in }
    ) async throws -> Outcome {
        let executable = try #require(Self.executable)
        let input = try FileIO.pipe()
        let output = try FileIO.pipe()
        let errors = try FileIO.pipe()
        // The child's ends must block, as a terminal or a shell pipe would.
        try FileIO.setNonBlocking(input.first.rawValue, false)
        try FileIO.setNonBlocking(output.second.rawValue, false)
        try FileIO.setNonBlocking(errors.second.rawValue, false)
        let program = prefix.first ?? executable
        let argv = prefix.isEmpty ? arguments : Array(prefix.dropFirst()) + [executable] + arguments
        let pid = try ChildProcess.launch(
            program,
            arguments: argv,
            environment: environment,
            standardInput: input.first.rawValue,
            standardOutput: output.second.rawValue,
            standardError: errors.second.rawValue
        )
        let stdinRead = input.first
        let stdinWrite = input.second
        stdinRead.close()
        _ = try? FileIO.write(stdinWrite.rawValue, Array(stdin.utf8))
        stdinWrite.close()
        let outRead = output.first
        let outWrite = output.second
        let errRead = errors.first
        let errWrite = errors.second
        outWrite.close()
        errWrite.close()
        await whileRunning(pid)
        var out: [UInt8] = []
        var err: [UInt8] = []
        let deadline = MonotonicClock.nowNanoseconds() + UInt64(seconds * 1e9)
        var termination: ChildProcess.Termination?
        while termination == nil {
            while let chunk = try FileIO.read(outRead.rawValue, max: 65_536), !chunk.isEmpty { out += chunk }
            while let chunk = try FileIO.read(errRead.rawValue, max: 65_536), !chunk.isEmpty { err += chunk }
            termination = try ChildProcess.wait(pid, block: false)
            if termination == nil && MonotonicClock.nowNanoseconds() > deadline {
                try? ChildProcess.signal(pid, SIGKILL)
                termination = try ChildProcess.wait(pid, block: true)
                Issue.record("accessoryctl \(arguments) did not finish within \(seconds) s")
            }
            if termination == nil { try await Task.sleep(for: .milliseconds(2)) }
        }
        while let chunk = try FileIO.read(outRead.rawValue, max: 65_536), !chunk.isEmpty { out += chunk }
        while let chunk = try FileIO.read(errRead.rawValue, max: 65_536), !chunk.isEmpty { err += chunk }
        outRead.close()
        errRead.close()
        let status: CInt
        switch termination {
        case .exited(let code)?: status = code
        case .signalled(let signal)?: status = 128 + signal
        case nil: status = -1
        }
        return Outcome(
            status: status,
            stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self)
        )
    }
}
