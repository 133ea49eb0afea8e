import Glibc
import SystemCalls
import Testing

/// ``ChildProcess/launchPiped(_:arguments:standardInput:standardOutput:standardError:)``: the
/// child runs on the given descriptors with SIGINT and SIGQUIT ignored (so a terminal's Ctrl-C
/// is left to the program that started it), and an exec failure comes back as its errno.
///
/// Threading: one test at a time on the calling thread; the children are reaped by pid.
@Suite("A child on given descriptors")
struct PipedChildTests {
    @Test("the child reads and writes the given descriptors and ignores SIGINT and SIGQUIT")
    func descriptorsAndIgnoredSignals() throws {
        var output: [CInt] = [0, 0]
        #expect(pipe(&output) == 0)
        defer { close(output[0]) }
        let pid = try ChildProcess.launchPiped(
            "/bin/sh",
            arguments: ["-c", "grep SigIgn /proc/self/status"],
            standardInput: 0,
            standardOutput: output[1],
            standardError: 2
        )
        close(output[1])
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 256)
        for _ in 0..<100 {
            let count = read(output[0], &buffer, buffer.count)
            if count <= 0 { break }
            bytes += buffer[0..<count]
        }
        #expect(try ChildProcess.wait(pid, block: true) == .exited(0))
        // grep's own mask: /bin/sh execs grep as its last command or forks it; either way the
        // ignored set is inherited through exec.
        let line = String(decoding: bytes, as: UTF8.self)
        let hex = try #require(
            line.split(whereSeparator: { $0 == "\t" || $0 == " " || $0 == "\n" }).last.map(String.init)
        )
        let ignored = try #require(UInt64(hex, radix: 16))
        #expect(ignored & (1 << UInt64(SIGINT - 1)) != 0, "SIGINT not ignored: \(line)")
        #expect(ignored & (1 << UInt64(SIGQUIT - 1)) != 0, "SIGQUIT not ignored: \(line)")
        #expect(ignored & (1 << UInt64(SIGTERM - 1)) == 0, "SIGTERM ignored: \(line)")
    }

    @Test("an executable that cannot be run is an error with the child's errno")
    func execFailure() {
        #expect(throws: SyscallError(.fork, .noSuchFileOrDirectory)) {
            _ = try ChildProcess.launchPiped(
                "/nonexistent/ssh",
                arguments: [],
                standardInput: 0,
                standardOutput: 1,
                standardError: 2
            )
        }
    }
}
