import AccessoryTestSupport
import Glibc
import SystemCalls
import Testing

/// Who is at the other end of a loopback TCP connection, as the kernel's socket diagnostics
/// tell: this process's own connection, one made by a process running as another uid
/// (`setpriv --reuid`), and an end where no socket is.
///
/// Threading: each test on its own test thread.
@Suite struct SocketDiagnosticsTests {
    /// Accepts one connection on `listener` (bounded wait).
    static func acceptOne(_ listener: CInt) throws -> OwnedFD {
        let deadline = MonotonicNow.seconds() + 20
        while MonotonicNow.seconds() < deadline {
            if let fd = try Socket.accept(listener) { return fd }
            _ = try FileIO.waitReadable(listener, milliseconds: 200)
        }
        throw SyscallError(.accept4, .timedOut)
    }

    @Test func ownConnectionIsOurs() throws {
        for address in [[127, 0, 0, 1], [UInt8](repeating: 0, count: 15) + [1]] as [[UInt8]] {
            let listener = try InetSocket.listening(on: InetEndpoint(address: address, port: 0))
            let client = try InetSocket.connect(to: try InetSocket.localEnd(listener.rawValue))
            let server = try Self.acceptOne(listener.rawValue)
            let local = try InetSocket.localEnd(server.rawValue)
            let remote = try InetSocket.remoteEnd(server.rawValue)
            #expect(try SocketDiagnostics.ownerUID(local: remote, remote: local) == geteuid(), "\(remote)")
            // The server's own socket, asked the other way round, is ours too.
            #expect(try SocketDiagnostics.ownerUID(local: local, remote: remote) == geteuid())
            client.close()  // Open until here.
        }
    }

    @Test func anEndWithoutASocketHasNoOwner() throws {
        let listener = try InetSocket.listening(on: InetEndpoint(address: [127, 0, 0, 1], port: 0))
        let local = try InetSocket.localEnd(listener.rawValue)
        let nobody = InetEndpoint(address: [127, 0, 0, 1], port: 1)
        #expect(try SocketDiagnostics.ownerUID(local: nobody, remote: local) == nil)
    }

    @Test(.enabled(if: getuid() == 0, "needs root to run a process as another uid"))
    func aConnectionMadeAsAnotherUidIsTheirs() throws {
        let listener = try InetSocket.listening(on: InetEndpoint(address: [127, 0, 0, 1], port: 0))
        let port = try InetSocket.localEnd(listener.rawValue).port
        let python = ExternalProgram.locate("python3", forOtherUsers: true)
        let script = "import socket,time; s=socket.create_connection(('127.0.0.1', \(port))); time.sleep(10)"
        let pid = try ChildProcess.launch(
            ExternalProgram.locate("setpriv"),
            arguments: ["--reuid=65534", "--regid=65534", "--clear-groups", python, "-c", script]
        )
        defer {
            try? ChildProcess.signal(pid, SIGKILL)
            _ = try? ChildProcess.wait(pid, block: true)
        }
        let server = try Self.acceptOne(listener.rawValue)
        let local = try InetSocket.localEnd(server.rawValue)
        let remote = try InetSocket.remoteEnd(server.rawValue)
        #expect(try SocketDiagnostics.ownerUID(local: remote, remote: local) == 65_534)
        #expect(try UserDatabase.groups(ofUser: 0)?.primary == 0)
    }
}
