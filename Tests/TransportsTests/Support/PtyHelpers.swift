import Glibc
import SystemCalls

/// A pty pair for a test: the master stays here (non-blocking), the slave is opened by path.
/// Closing the master is the "unplug". Any thread, one owner.
final class TestPty {
    let master: FDBox
    let slavePath: String

    init() throws {
        let pair = try PseudoTerminal.open()
        slavePath = pair.slavePath
        master = FDBox(pair.master)
    }

    var masterFD: CInt { master.raw }

    /// Lets another uid open the slave (it is created 0620 root:tty).
    func makeSlaveWorldWritable() {
        _ = chmod(slavePath, 0o666)
    }
}

/// Runs a program with `argv`, waits at most `seconds`, returns its exit status and standard
/// output (nil when it could not start or timed out; a child that overruns is killed). Any thread.
func runProgram(_ argv: [String], seconds: Double = 10) -> (status: Int32, output: String)? {
    guard let pipe = try? FileIO.pipe() else { return nil }  // both ends close-on-exec
    let fds: [Int32] = [pipe.first.release(), pipe.second.release()]
    defer {
        if fds[0] >= 0 { close(fds[0]) }
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
    posix_spawn_file_actions_adddup2(&actions, fds[1], 2)
    let cArgs = argv.map { strdup($0) }
    defer {
        for p in cArgs { free(p) }
    }
    var argvC: [UnsafeMutablePointer<CChar>?] = cArgs + [nil]
    var pid: pid_t = 0
    let rc = posix_spawnp(&pid, argv[0], &actions, nil, &argvC, environ)
    close(fds[1])
    guard rc == 0 else { return nil }
    var output: [UInt8] = []
    var status: Int32 = 0
    let deadline = monotonicSeconds() + seconds
    var exited = false
    while monotonicSeconds() < deadline {
        var buf = [UInt8](repeating: 0, count: 4096)
        let n = read(fds[0], &buf, buf.count)
        if n > 0 { output += buf[0..<n] }
        if waitpid(pid, &status, WNOHANG) == pid {
            exited = true
            break
        }
        usleep(2000)  // Polls the child process's pty and exit (bounded by the deadline above).
    }
    if !exited {
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        return nil
    }
    var buf = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = read(fds[0], &buf, buf.count)
        if n <= 0 { break }
        output += buf[0..<n]
    }
    let exitCode = (status & 0x7f) == 0 ? (status >> 8) & 0xff : -1
    return (exitCode, String(decoding: output, as: UTF8.self))
}

func monotonicSeconds() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}
