import ControlProtocol
import SystemCalls
import Testing

/// `accessoryctl lock`: a scripted session on one connection under the lock.
///
/// Threading: each test runs on its own task with its own fake daemon and child process.
@Suite(.enabled(if: CtlProcess.executable != nil, Comment(rawValue: CtlProcess.notBuilt)))
struct CtlLockTests {
    @Test func aScriptFromStandardInputRunsUnderTheLockOnOneConnection() async throws {
        let daemon = try FakeDaemon(script: MethodTests.answer)
        defer { daemon.stop() }
        let script = """
            transact modem AT
            # a comment, then a blank line

            sleep 10
            transact modem 'AT+CGMI' --timeout 700
            """
        let run = try await CtlProcess.run(
            ["lock", "modem", "--lease", "5000", "--echo", "--socket", daemon.socketPath],
            stdin: script + "\n"
        )
        #expect(run.status == 0, "\(run)")
        #expect(
            run.stdoutLines == [
                "> transact modem AT", "AT", "OK", "> sleep 10", "> transact modem AT+CGMI --timeout 700", "AT+CGMI",
                "OK",
            ]
        )
        #expect(
            daemon.requests.map(\.method) == [
                .lock(LockParams(device: "modem", leaseMs: 5000)),
                .transact(TransferParams(device: "modem", data: Array("AT".utf8))),
                .transact(TransferParams(device: "modem", data: Array("AT+CGMI".utf8), timeoutMs: 700)),
                .unlock(DeviceParams(device: "modem")),
            ]
        )
        #expect(daemon.connectionCount == 1)
    }

    @Test func theSessionStopsAtTheFirstFailureUnlocksAndExitsWithItsStatus() async throws {
        let daemon = try FakeDaemon { request, peer in
            if request.method.device == "ghost" {
                peer.fail(request.id, RPCError(.unknownDevice, "no accessory named \"ghost\" is configured"))
            } else {
                MethodTests.answer(request, peer)
            }
        }
        defer { daemon.stop() }
        let run = try await CtlProcess.run([
            "lock", "modem", "--socket", daemon.socketPath, "--", "transact modem AT", "transact ghost AT",
            "transact modem ATI",
        ])
        #expect(run.status == 5, "\(run)")
        #expect(
            run.stderr
                == "error: line 2 (transact ghost AT): no accessory named \"ghost\" is configured (unknown_device)\n"
        )
        #expect(
            daemon.requests.map(\.method) == [
                .lock(LockParams(device: "modem")),
                .transact(TransferParams(device: "modem", data: Array("AT".utf8))),
                .transact(TransferParams(device: "ghost", data: Array("AT".utf8))),
                .unlock(DeviceParams(device: "modem")),
            ]
        )
    }

    @Test func aBadScriptLineIsAUsageErrorAndKeepGoingRunsTheRest() async throws {
        let daemon = try FakeDaemon(script: MethodTests.answer)
        defer { daemon.stop() }
        let run = try await CtlProcess.run([
            "lock", "modem", "--keep-going", "--socket", daemon.socketPath, "--", "frobnicate modem", "list",
        ])
        #expect(run.status == 2, "\(run)")
        #expect(run.stderr.hasPrefix("error: line 1 (frobnicate modem): "), "\(run)")
        #expect(run.stdoutLines.first == "NAME  STATE   TRANSPORT  PATH        QUEUE")
        #expect(daemon.requests.last?.method == .unlock(DeviceParams(device: "modem")))
    }

    @Test func scriptLinesAreSplitLikeAShellWould() async throws {
        let daemon = try FakeDaemon(script: MethodTests.answer)
        defer { daemon.stop() }
        let run = try await CtlProcess.run(
            ["lock", "modem", "--socket", daemon.socketPath],
            stdin: #"transact modem "say \"hi\"" # trailing comment"# + "\n" + #"transact modem a\ b"# + "\n"
        )
        #expect(run.status == 0, "\(run)")
        let sent = daemon.requests.compactMap { request -> String? in
            guard case .transact(let params) = request.method else { return nil }
            return String(decoding: params.data, as: UTF8.self)
        }
        #expect(sent == [#"say "hi""#, "a b"])
    }
}
