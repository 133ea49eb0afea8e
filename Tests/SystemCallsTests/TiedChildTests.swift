import AccessoryTestSupport
import Glibc
import Synchronization
import SystemCalls
import Testing

/// ``ChildProcess/spawnTied(_:arguments:standardOutput:deathSignal:)``: the child gets its
/// death signal when the thread that started it ends (Linux ties `PR_SET_PDEATHSIG` to the
/// thread), and an exec failure comes back as the child's errno.
///
/// Threading: each test on its own thread; the children are this process's, reaped by pid.
@Suite("A child tied to the thread that started it")
struct TiedChildTests {
    @Test("the child is sent SIGTERM when the starting thread ends")
    func diesWithItsThread() throws {
        let started = Mutex<pid_t?>(nil)
        let thread = TestThread {
            let pid = try? ChildProcess.spawnTied("/bin/sleep", arguments: ["30"])
            started.withLock { $0 = pid }
        }
        thread.join()
        let pid = try #require(started.withLock { $0 })
        var ended: ChildProcess.Termination?
        for _ in 0..<500 where ended == nil {
            ended = try ChildProcess.wait(pid, block: false)
            if ended == nil { usleep(10_000) }
        }
        if ended == nil {
            try? ChildProcess.signal(pid, SIGKILL)
            _ = try? ChildProcess.wait(pid, block: true)
        }
        #expect(ended == .signalled(SIGTERM), "sleep 30 outlived the thread that started it")
    }

    @Test("a child started by a thread that lives on keeps running")
    func livesWhileItsThreadLives() throws {
        let pid = try ChildProcess.spawnTied("/bin/sleep", arguments: ["30"])
        usleep(100_000)
        #expect(try ChildProcess.wait(pid, block: false) == nil)
        try ChildProcess.signal(pid, SIGKILL)
        #expect(try ChildProcess.wait(pid, block: true) == .signalled(SIGKILL))
    }

    @Test("an executable that cannot be run is an error with the child's errno")
    func execFailure() {
        #expect(throws: SyscallError(.fork, .noSuchFileOrDirectory)) {
            _ = try ChildProcess.spawnTied("/nonexistent/accessory-sim", arguments: [])
        }
    }
}
