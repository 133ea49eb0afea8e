import Glibc
import SystemCalls
import Systemd
import Testing

@Suite("SocketActivation (LISTEN_PID, LISTEN_FDS, LISTEN_FDNAMES)")
struct SocketActivationTests {
    typealias D = SocketActivation.Descriptor

    @Test("descriptors start at 3 and take their names in order")
    func names() throws {
        let env = ["LISTEN_PID": "42", "LISTEN_FDS": "3", "LISTEN_FDNAMES": "varlink:control:"]
        #expect(
            try SocketActivation.descriptors(environment: env, pid: 42) == [
                D(fd: 3, name: "varlink"), D(fd: 4, name: "control"), D(fd: 5, name: ""),
            ]
        )
    }

    @Test("without LISTEN_FDNAMES every descriptor is called unknown")
    func unnamed() throws {
        let env = ["LISTEN_PID": "42", "LISTEN_FDS": "2"]
        #expect(
            try SocketActivation.descriptors(environment: env, pid: 42) == [
                D(fd: 3, name: "unknown"), D(fd: 4, name: "unknown"),
            ]
        )
    }

    @Test("not for us: no LISTEN_PID, another pid, or zero descriptors")
    func notOurs() throws {
        #expect(try SocketActivation.descriptors(environment: ["LISTEN_FDS": "1"], pid: 42).isEmpty)
        let other = ["LISTEN_PID": "41", "LISTEN_FDS": "1", "LISTEN_FDNAMES": "control"]
        #expect(try SocketActivation.descriptors(environment: other, pid: 42).isEmpty)
        #expect(
            try SocketActivation.descriptors(environment: ["LISTEN_PID": "42", "LISTEN_FDS": "0"], pid: 42).isEmpty
        )
    }

    @Test(
        "bad numbers and a name count that does not match are errors",
        arguments: [
            ["LISTEN_PID": "x", "LISTEN_FDS": "1"], ["LISTEN_PID": "42", "LISTEN_FDS": "one"],
            ["LISTEN_PID": "42", "LISTEN_FDS": "-1"], ["LISTEN_PID": "42", "LISTEN_FDS": "100000"],
            ["LISTEN_PID": "42", "LISTEN_FDS": "2", "LISTEN_FDNAMES": "control"],
        ]
    )
    func bad(environment: [String: String]) {
        #expect(throws: SystemdError.self) { try SocketActivation.descriptors(environment: environment, pid: 42) }
    }

    @Test("choose: the preferred name wins; else the first listening stream socket")
    func chooseByName() {
        let ds = [D(fd: 3, name: "a"), D(fd: 4, name: "control"), D(fd: 5, name: "b")]
        #expect(SocketActivation.choose(from: ds, preferredName: "control") { _ in true } == ds[1])
        #expect(SocketActivation.choose(from: ds, preferredName: "other") { $0 == 5 } == ds[2])
        #expect(SocketActivation.choose(from: ds, preferredName: "other") { _ in false } == nil)
        #expect(SocketActivation.choose(from: [], preferredName: "control") { _ in true } == nil)
    }

    @Test("choose with real descriptors: only the listening Unix stream socket qualifies")
    func chooseRealSockets() throws {
        let folder = try FileIO.makeTemporaryDirectory(prefix: "/tmp/accessoryd-activation-")
        defer {
            unlink(folder + "/s")
            try? FileIO.removeDirectory(folder)
        }
        let datagram = try Socket.unixDatagram()
        let pair = try Socket.socketPair()
        let pipe = try FileIO.pipe()
        let listening = try Socket.unixStream()
        try Socket.bind(listening.rawValue, .path(folder + "/s"))
        try Socket.listen(listening.rawValue)
        let ds = [
            D(fd: datagram.rawValue, name: "d"), D(fd: pair.first.rawValue, name: "p"),
            D(fd: pipe.first.rawValue, name: "pipe"), D(fd: listening.rawValue, name: "l"),
        ]
        let chosen = SocketActivation.choose(from: ds, preferredName: "control") { fd in
            (try? Socket.isListeningUnixStream(fd)) ?? false
        }
        #expect(chosen == ds[3])
        #expect(FileIO.isOpenDescriptor(listening.rawValue))
        // A high number (descriptors are given out lowest first, so nothing else takes it meanwhile).
        let high = fcntl(datagram.rawValue, F_DUPFD_CLOEXEC, 900)
        try #require(high >= 900)
        #expect(FileIO.isOpenDescriptor(high))
        OwnedFD(adopting: high).close()
        #expect(!FileIO.isOpenDescriptor(high))
        #expect(!FileIO.isOpenDescriptor(-1))
    }
}
