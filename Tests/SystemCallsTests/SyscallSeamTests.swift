import Glibc
import Synchronization
import SystemCalls
import Testing

@Suite("system-call seam")
struct SyscallSeamTests {
    @Test("EINTR is retried until the call succeeds")
    func eintrRetried() throws {
        let pipe = try FileIO.pipe()
        let r = pipe.first
        let w = pipe.second
        let fd = w.rawValue
        let attempts = Atomic<Int>(0)
        // Fail the first three attempts with EINTR, then let the real call through.
        let rule: FaultInjection.Rule = { name, f in
            guard name == .write, f == fd else { return nil }
            return attempts.wrappingAdd(1, ordering: .relaxed).oldValue < 3 ? .error(.interrupted) : nil
        }
        let written = try FaultInjection.with(rule, { () throws(SyscallError) in try FileIO.write(fd, [1, 2, 3]) })
        #expect(written == .processed(3))
        #expect(attempts.load(ordering: .relaxed) == 4)
        #expect(try FileIO.read(r.rawValue, max: 8) == [1, 2, 3])
    }

    @Test("EAGAIN is surfaced as .wouldBlock, not thrown")
    func eagainSurfaced() throws {
        let pipe = try FileIO.pipe()
        let r = pipe.first
        // An empty non-blocking pipe: the real kernel says EAGAIN.
        #expect(try FileIO.read(r.rawValue, max: 8) == nil)
        // And an injected EAGAIN on a write is reported the same way.
        let w = pipe.second
        let fd = w.rawValue
        let rule: FaultInjection.Rule = { name, f in
            name == .write && f == fd ? .error(.resourceTemporarilyUnavailable) : nil
        }
        let result = try FaultInjection.with(rule, { () throws(SyscallError) in try FileIO.write(fd, [1]) })
        #expect(result == .wouldBlock)
    }

    @Test("EIO is thrown with the call's name")
    func eioThrownWithName() throws {
        let pipe = try FileIO.pipe()
        let r = pipe.first
        let fd = r.rawValue
        let error = #expect(throws: SyscallError.self) {
            let rule: FaultInjection.Rule = { name, f in name == .read && f == fd ? .error(.ioError) : nil }
            try FaultInjection.with(rule, { () throws(SyscallError) in _ = try FileIO.read(fd, max: 8) })
        }
        #expect(error?.call == .read)
        #expect(error?.errno == .ioError)
        #expect(error?.description.hasPrefix("read: ") == true)
        _ = pipe.second
    }

    @Test("a short-write fault moves at most the limit")
    func shortWrites() throws {
        let pipe = try FileIO.pipe()
        let r = pipe.first
        let w = pipe.second
        let fd = w.rawValue
        let rule: FaultInjection.Rule = { name, f in name == .write && f == fd ? .limit(1) : nil }
        let n = try FaultInjection.with(rule, { () throws(SyscallError) in try FileIO.write(fd, [9, 8, 7]) })
        #expect(n == .processed(1))
        #expect(try FileIO.read(r.rawValue, max: 8) == [9])
    }

    @Test("rules only affect the descriptors they name; removing a rule restores normal calls")
    func rulesAreScoped() throws {
        let a = try FileIO.pipe()
        let b = try FileIO.pipe()
        let afd = a.second.rawValue
        let token = FaultInjection.install { name, f in name == .write && f == afd ? .error(.ioError) : nil }
        #expect(throws: SyscallError.self) { _ = try FileIO.write(afd, [1]) }
        #expect(try FileIO.write(b.second.rawValue, [1]) == .processed(1))
        FaultInjection.remove(token)
        #expect(try FileIO.write(afd, [1]) == .processed(1))
    }

    @Test("OwnedFD closes exactly once: close() consumes it, release() hands it over")
    func ownedFDCloseOnce() throws {
        let pipe = try FileIO.pipe()
        let raw = pipe.first.release()
        // Still open: fcntl works.
        #expect(fcntl(raw, F_GETFD) != -1)
        OwnedFD(adopting: raw).close()
        // Closed now. (Checked right away, before another test can reuse the number.)
        #expect(fcntl(raw, F_GETFD) == -1 && errno == EBADF)
        _ = pipe.second
    }

    @Test("pseudo-terminal pair: the slave path opens and bytes flow both ways")
    func ptyPair() throws {
        let pty = try PseudoTerminal.open()
        let slave = try FileIO.open(pty.slavePath, flags: O_RDWR | O_NOCTTY | O_NONBLOCK)
        try PseudoTerminal.makeRaw(slave.rawValue)
        _ = try FileIO.write(pty.master.rawValue, Array("ping".utf8))
        var got: [UInt8] = []
        for _ in 0..<1000 where got.count < 4 {
            if let b = try FileIO.read(slave.rawValue, max: 16) { got += b } else { usleep(1000) }
        }
        #expect(got == Array("ping".utf8))
    }
}
