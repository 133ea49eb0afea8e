import Glibc
import SystemCalls
import Testing

/// ``ClientSocketTrust``: which sockets a client checks (decided by where they are), and the
/// verdicts of the checks on stated statuses and credentials.
///
/// Threading: each test on its own thread.
@Suite("Client socket trust: the caller's per-user directories are checked, nothing else")
struct ClientSocketTrustTests {
    static func trust(_ path: String, xdg: String? = "/run/user/1000", uid: UInt32 = 1000) -> ClientSocketTrust {
        ClientSocketTrust.of(path: path, environment: { $0 == "XDG_RUNTIME_DIR" ? xdg : nil }, uid: uid)
    }

    @Test("per-user: /tmp/accessoryd-<uid> and $XDG_RUNTIME_DIR/accessoryd, however the path was given")
    func perUser() {
        #expect(
            Self.trust("/run/user/1000/accessoryd/accessoryd.sock") == .perUser(directory: "/run/user/1000/accessoryd")
        )
        #expect(
            Self.trust("/run/user/1000/accessoryd/x.sock", xdg: "/run/user/1000/")
                == .perUser(directory: "/run/user/1000/accessoryd")
        )
        #expect(Self.trust("/tmp/accessoryd-1000/accessoryd.sock") == .perUser(directory: "/tmp/accessoryd-1000"))
        #expect(
            Self.trust("/tmp/accessoryd-1000/accessoryd.sock", xdg: nil) == .perUser(directory: "/tmp/accessoryd-1000")
        )
    }

    @Test("as given: the system socket, another user's per-user directory, any other path, root's")
    func asGiven() {
        #expect(Self.trust(DaemonPaths.systemSocket) == .system)
        #expect(Self.trust("/tmp/accessoryd-1001/accessoryd.sock") == .asGiven)
        #expect(Self.trust("/srv/lab/accessoryd.sock") == .asGiven)
        #expect(Self.trust("relative.sock") == .asGiven)
        #expect(Self.trust("/tmp/accessoryd-0/accessoryd.sock", uid: 0) == .asGiven)
        #expect(Self.trust(DaemonPaths.systemSocket, uid: 0) == .system)
    }

    @Test("the process behind a per-user socket: the caller or root; any for the others")
    func peer() {
        let perUser = ClientSocketTrust.perUser(directory: "/tmp/accessoryd-1000")
        let path = "/tmp/accessoryd-1000/accessoryd.sock"
        func credentials(_ uid: UInt32) -> Socket.PeerCredentials { Socket.PeerCredentials(pid: 7, uid: uid, gid: uid) }
        #expect(throws: Never.self) { try perUser.checkPeer(credentials(1000), path: path, uid: 1000) }
        #expect(throws: Never.self) { try perUser.checkPeer(credentials(0), path: path, uid: 1000) }
        #expect(throws: SocketTrustError.peer(path: path, pid: 7, peerUID: 65533, uid: 1000)) {
            try perUser.checkPeer(credentials(65533), path: path, uid: 1000)
        }
        #expect(throws: Never.self) {
            try ClientSocketTrust.system.checkPeer(credentials(61234), path: path, uid: 1000)
        }
        #expect(throws: Never.self) {
            try ClientSocketTrust.asGiven.checkPeer(credentials(65533), path: path, uid: 1000)
        }
    }

    @Test("before connecting: a missing directory or socket passes (the connect says not running)")
    func missingPasses() throws {
        let trust = ClientSocketTrust.perUser(directory: "/nonexistent-accessoryd-test")
        #expect(throws: Never.self) { try trust.checkBeforeConnect("/nonexistent-accessoryd-test/a.sock", uid: 1000) }
    }
}
