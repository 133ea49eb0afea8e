import AccessoryTestSupport
import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// A user the socket's mode shuts out gets exit status 4 and a message that says why.
///
/// Threading: the test's task; the child runs as uid 65534 through `setpriv`.
@Suite struct CtlPermissionTests {
    static let setpriv = ExternalProgram.locate("setpriv")

    static var skipReason: String? {
        if CtlProcess.executable == nil { return CtlProcess.notBuilt }
        if getuid() != 0 { return "running another uid with setpriv needs root" }
        if let missing = ExternalProgram.missing("setpriv") { return missing }
        return nil
    }

    @Test(.enabled(if: skipReason == nil, Comment(rawValue: skipReason ?? "")))
    func aSocketOnlyRootMayUseGivesExit4() async throws {
        let daemon = try FakeDaemon(script: MethodTests.answer)
        defer { daemon.stop() }
        #expect(chmod(daemon.socketPath, 0o600) == 0)
        let nobody = [Self.setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]
        let run = try await CtlProcess.run(["list", "--socket", daemon.socketPath], prefix: nobody)
        #expect(run.status == 4, "\(run)")
        #expect(
            run.stderr
                == "error: permission denied connecting to accessoryd at \(daemon.socketPath) "
                + "(the socket's owner, group or mode does not allow this user)\n"
        )
        #expect(daemon.connectionCount == 0)
        let asRoot = try await CtlProcess.run(["list", "--socket", daemon.socketPath])
        #expect(asRoot.status == 0, "the same socket serves root: \(asRoot)")
    }
}
