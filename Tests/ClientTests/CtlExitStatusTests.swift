import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// `accessoryctl`'s exit statuses and error messages.
///
/// Threading: each test runs on its own task with its own fake daemon and child process.
@Suite(.enabled(if: CtlProcess.executable != nil, Comment(rawValue: CtlProcess.notBuilt)))
struct CtlExitStatusTests {
    /// Fails every request with the error its device name asks for.
    static func failing(_ request: Request, _ peer: FakePeer) {
        switch request.method.device {
        case "ghost"?: peer.fail(request.id, RPCError(.unknownDevice, "no accessory named \"ghost\" is configured"))
        case "gone"?: peer.fail(request.id, RPCError(.deviceRemoved))
        case "slow"?: peer.fail(request.id, RPCError(.timedOut, "no response within 500 ms"))
        case "busy"?: peer.fail(request.id, RPCError(.queueFull))
        default: peer.fail(request.id, RPCError(.permissionDenied, "you may not use this accessory"))
        }
    }

    @Test(
        arguments: [
            ("busy", 1, "error: the accessory's request queue is full; try again later (queue_full)"),
            ("ghost", 5, "error: no accessory named \"ghost\" is configured (unknown_device)"),
            ("gone", 5, "error: the accessory was removed during the request (device_removed)"),
            ("slow", 6, "error: no response within 500 ms (timed_out)"),
            ("secret", 4, "error: you may not use this accessory (permission_denied)"),
        ]
    )
    func failedRequestsExitWithTheirStatusAndMessage(device: String, status: CInt, message: String) async throws {
        let daemon = try FakeDaemon(script: Self.failing)
        defer { daemon.stop() }
        let run = try await CtlProcess.run(["transact", "--socket", daemon.socketPath, device, "AT"])
        #expect(run.status == status, "\(run)")
        #expect(run.stderr == message + "\n")
        #expect(run.stdout.isEmpty)
    }

    @Test func noDaemonExitsWith3() async throws {
        let folder = try TestFolder()
        defer { folder.remove() }
        let path = folder.file("accessoryd.sock")
        let run = try await CtlProcess.run(["list", "--socket", path])
        #expect(run.status == 3, "\(run)")
        #expect(run.stderr == "error: accessoryd is not running (no socket at \(path))\n")
        let stale = try Socket.socket(domain: AF_UNIX, type: CInt(SOCK_STREAM.rawValue))
        try Socket.bind(stale.rawValue, .path(path))
        stale.close()
        let again = try await CtlProcess.run(["status", "--socket", path])
        #expect(again.status == 3 && again.stderr.contains("nothing is listening on \(path)"), "\(again)")
    }

    @Test func usageErrorsExitWith2AndSendNothing() async throws {
        let daemon = try FakeDaemon(script: MethodTests.answer)
        defer { daemon.stop() }
        for arguments in [
            ["transact", "--socket", daemon.socketPath, "--hex", "echo", "0g"],
            ["transact", "--socket", daemon.socketPath, "--hex", "--base64", "echo", "00"],
            ["read", "--socket", daemon.socketPath, "gps", "--timeout", "0"],
            ["frobnicate"],
        ] {
            let run = try await CtlProcess.run(arguments)
            #expect(run.status == 2, "\(arguments): \(run)")
            #expect(run.stderr.contains("Error:") || run.stderr.contains("error:"), "\(run)")
        }
        #expect(daemon.connectionCount == 0)
    }

    /// The request was in flight: it fails, and is not sent again to the daemon that is still
    /// listening.
    @Test func theDaemonHangingUpMidRequestExitsWith1() async throws {
        let daemon = try FakeDaemon { _, peer in peer.close() }
        defer { daemon.stop() }
        let run = try await CtlProcess.run(["transact", "--socket", daemon.socketPath, "modem", "AT"])
        #expect(
            run.status == 1
                && run.stderr == "error: accessoryd went away with this request in flight (it stopped or restarted); "
                    + "the request was not resent, and whether the accessory saw it is unknown (daemon_restarted)\n",
            "\(run)"
        )
        #expect(daemon.requests.count == 1)
    }
}
