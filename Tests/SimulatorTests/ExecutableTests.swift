import Glibc
import SystemCalls
import Testing

/// The built `accessory-sim` executable, run as a child process the way the daemon runs it.
///
/// Threading: each test runs on its test thread and owns the child it starts (signalled by pid).
@Suite struct ExecutableTests {
    /// `accessory-sim` next to the running test binary (the build products folder), if built.
    static var executable: String? {
        guard let me = try? FileIO.readLink("/proc/self/exe") else { return nil }
        var folder = me
        while let last = folder.last, last != "/" { folder.removeLast() }
        let candidate = folder + "accessory-sim"
        guard let fd = try? FileIO.open(candidate, flags: O_RDONLY) else { return nil }
        fd.close()
        return candidate
    }

    @Test(
        .enabled(
            if: executable != nil,
            "accessory-sim is not built next to the tests (swift build --product accessory-sim)"
        )
    )
    func theExecutablePrintsReadyLinesServesAndCleansUpOnSIGTERM() throws {
        let folder = try TemporaryFolder()
        let link = folder.path + "/modem"
        let links = [link + "0", link + "1"]
        for l in links { _ = folder.file(String(l.split(separator: "/").last!)) }
        let pipe = try FileIO.pipe()
        let readEnd = pipe.first
        let writeEnd = pipe.second
        let pid = try ChildProcess.spawn(
            Self.executable!,
            arguments: ["--personality", "at-modem", "--count", "2", "--link", link, "--name", "modem"],
            standardOutput: writeEnd.rawValue
        )
        writeEnd.close()
        var reaped = false
        defer {
            if !reaped {
                try? ChildProcess.signal(pid, SIGKILL)
                _ = try? ChildProcess.wait(pid, block: true)
            }
        }
        let stdout = PipeReader(readEnd)
        let lines = try stdout.lines(count: 2, seconds: 10)
        #expect(lines.count == 2)
        var paths: [String] = []
        for (i, line) in lines.enumerated() {
            let fields = line.split(separator: " ").map(String.init)
            #expect(fields.count == 3 && fields[0] == "READY" && fields[1] == "modem\(i)")
            paths.append(fields.last ?? "")
            #expect(linkTarget(links[i]) == fields.last)
        }
        let client = try SlaveClient(path: links[1])
        try client.write("AT+CSQ\r")
        #expect(try client.read(through: "OK\r\n") == "\r\n+CSQ: 23,99\r\n\r\nOK\r\n")

        try ChildProcess.signal(pid, SIGTERM)
        var termination: ChildProcess.Termination?
        let deadline = SlaveClient.now() + 10
        while termination == nil, SlaveClient.now() < deadline {
            termination = try ChildProcess.wait(pid, block: false)
            if termination == nil { usleep(5_000) }
        }
        reaped = termination != nil
        #expect(termination == .exited(0))
        #expect(client.waitForEnding() != nil)
        for l in links { #expect(linkTarget(l) == nil) }
    }

    @Test(.enabled(if: executable != nil, "accessory-sim is not built next to the tests"))
    func sigusr1UnplugsAndTheAccessoryReappearsOnANewPty() throws {
        let folder = try TemporaryFolder()
        let link = folder.path + "/gps"
        let pipe = try FileIO.pipe()
        let readEnd = pipe.first
        let writeEnd = pipe.second
        let pid = try ChildProcess.spawn(
            Self.executable!,
            arguments: [
                "--personality", "nmea", "--unsolicited-ms", "50", "--link", link, "--reappear-after-ms", "100",
            ],
            standardOutput: writeEnd.rawValue
        )
        writeEnd.close()
        defer {
            try? ChildProcess.signal(pid, SIGKILL)
            _ = try? ChildProcess.wait(pid, block: true)
        }
        let stdout = PipeReader(readEnd)
        let ready = try stdout.lines(count: 1, seconds: 10)
        let first = ready.first?.split(separator: " ").last.map(String.init)
        try #require(ready.first?.hasPrefix("READY nmea ") == true, "\(ready)")
        let client = try SlaveClient(path: link)
        _ = try client.read(seconds: 5) { String(decoding: $0, as: UTF8.self).contains("$GPRMC") }
        try ChildProcess.signal(pid, SIGUSR1)
        let after = try stdout.lines(count: 2, seconds: 10)
        #expect(after.first == "GONE nmea", "\(after)")
        #expect(client.waitForEnding() != nil, "the old pty hung up")
        let second = after.dropFirst().first?.split(separator: " ").last.map(String.init)
        #expect(after.dropFirst().first?.hasPrefix("READY nmea ") == true, "\(after)")
        #expect(second != nil && second != first, "a new pty: \(after)")
        #expect(linkTarget(link) == second)
        let again = try SlaveClient(path: link)
        let fixes = try again.read(seconds: 5) { String(decoding: $0, as: UTF8.self).contains("$GPRMC") }
        #expect(String(decoding: fixes, as: UTF8.self).contains("$GPRMC"))
    }

    @Test(.enabled(if: executable != nil, "accessory-sim is not built next to the tests"))
    func badArgumentsExitWithAUsageError() throws {
        let pid = try ChildProcess.spawn(Self.executable!, arguments: ["--personality", "script"])
        var termination: ChildProcess.Termination?
        let deadline = SlaveClient.now() + 10
        while termination == nil, SlaveClient.now() < deadline {
            termination = try ChildProcess.wait(pid, block: false)
            if termination == nil { usleep(5_000) }
        }
        if termination == nil {
            try? ChildProcess.signal(pid, SIGKILL)
            _ = try? ChildProcess.wait(pid, block: true)
        }
        #expect(termination == .exited(64))
    }
}

/// Reads lines from a child's stdout pipe with a deadline. Test thread only.
final class PipeReader {
    private let fd: OwnedFD
    private var buffer: [UInt8] = []

    init(_ fd: consuming OwnedFD) { self.fd = fd }

    /// The first `count` complete lines, or fewer if the deadline passes or the pipe closes.
    func lines(count: Int, seconds: Double) throws -> [String] {
        var out: [String] = []
        let deadline = SlaveClient.now() + seconds
        while out.count < count, SlaveClient.now() < deadline {
            if let nl = buffer.firstIndex(of: 0x0A) {
                out.append(String(decoding: buffer[..<nl], as: UTF8.self))
                buffer.removeSubrange(...nl)
                continue
            }
            guard let chunk = try FileIO.read(fd.rawValue, max: 4096) else {
                usleep(2_000)
                continue
            }
            if chunk.isEmpty { break }
            buffer += chunk
        }
        return out
    }
}
