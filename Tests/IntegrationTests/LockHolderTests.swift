import AccessoryTestSupport
import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// A lock held by a process that is killed (SIGKILL: no unlock, no orderly close) is released,
/// and the client waiting behind it is served.
///
/// Threading: the test's thread; it owns the scenario's processes and the holder child.
@Suite struct LockHolderTests {
    static let python = ExternalProgram.locate("python3")

    /// Takes the lock named by argv[2], prints the reply, then sleeps until killed.
    static let holderScript = """
        import socket, sys, time
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(sys.argv[1])
        f = s.makefile("rwb")
        f.write(b'{"jsonrpc":"2.0","id":1,"method":"lock","params":{"device":"' + sys.argv[2].encode() + b'"}}\\n')
        f.flush()
        sys.stdout.write(f.readline().decode())
        sys.stdout.flush()
        time.sleep(60)
        """

    /// What a lock holder's test starts from: a daemon serving echo, a python process holding
    /// echo's lock, and another client whose `transact` of `text` (with `wait_ms`) waits behind it
    /// and is not answered meanwhile. The caller kills the holder and finishes the scenario.
    static func echoLockedByAProcess(
        waiting text: String
    ) throws -> (s: Scenario, holder: ChildRun, other: RPCClient, waiting: RequestID) {
        let s = try Scenario()
        do {
            try s.simulator("echo")
            try s.startDaemon(accessories: [s.lineAccessory("echo")])
            let holder = try ChildRun(
                label: "lock holder",
                executable: python,
                arguments: ["-c", holderScript, s.socketPath, "echo"],
                stdoutPath: s.directory.file("holder.out"),
                stderrPath: s.directory.file("holder.err")
            )
            do {
                let locked = Deadline(seconds: 10)
                while !holder.stdout.contains(#""locked":true"#) && !locked.hasPassed { usleep(5_000) }
                try #require(holder.stdout.contains(#""locked":true"#), "holder: \(holder.stdout) \(holder.stderr)")
                let other = try s.connect()
                let waiting = try other.send("transact", Params.transfer("echo", text, waitMs: 30_000))
                #expect(try other.messages(during: 0.3).isEmpty, "answered while another process held the lock")
                return (s, holder, other, waiting)
            } catch {
                holder.kill()
                throw error
            }
        } catch {
            s.finish()
            throw error
        }
    }

    @Test(.enabled(if: ExternalProgram.missing("python3") == nil, "\(ExternalProgram.missing("python3") ?? "")"))
    func aKilledHolderReleasesTheLock() throws {
        let (s, holder, other, waiting) = try Self.echoLockedByAProcess(waiting: "after the holder")
        defer {
            holder.kill()
            s.finish()
        }
        // Nor can this client unlock it.
        #expect(try other.call("unlock", Params.device("echo")).code == 1006)
        let clock = Stopwatch()
        holder.kill()
        #expect(try other.response(to: waiting, seconds: 10).frameTexts == ["after the holder"])
        print("lock holder SIGKILLed: the waiting request was answered \(clock.elapsed) s later")
        #expect(clock.elapsed < 2)
        other.close()
    }
}
