import Glibc
import SystemCalls
import Testing

@testable import TrafficTrace

@Suite("trace files: rotation and safe creation")
struct RotationTests {
    @Test("max_bytes 1024, keep 2: exactly file, file.1, file.2, none larger than max_bytes, the newest bytes kept")
    func rotatesKeepingTwo() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/modem.trace"
        let file = try RotatingTraceFile.open(path: path, maxBytes: 1_024, keep: 2)
        var all: [UInt8] = []
        for index in 0..<100 {
            let record = Array("record \(String(index).paddedTo(3)) \(String(repeating: "z", count: 88))\n".utf8)
            #expect(record.count == 100)
            all += record
            try record.withUnsafeBufferPointer { try file.write(record: $0) }
        }
        file.close()
        #expect(folder.names == ["modem.trace", "modem.trace.1", "modem.trace.2"])
        let current = try FileIO.readFile(path)
        let first = try FileIO.readFile(path + ".1")
        let second = try FileIO.readFile(path + ".2")
        // Ten 100-byte records fit in 1024 bytes; the file is rotated before the eleventh.
        #expect(first.count == 1_000 && second.count == 1_000)
        #expect(current.count == 1_000)
        #expect(second + first + current == Array(all.suffix(second.count + first.count + current.count)))
        let status = try #require(try FileIO.status(ofPath: path))
        #expect(status.permissions == RotatingTraceFile.mode)
    }

    @Test("keep 0: the file starts afresh, no old ones")
    func keepZero() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/t"
        let file = try RotatingTraceFile.open(path: path, maxBytes: 1_024, keep: 0)
        let record = Array(String(repeating: "a", count: 599).utf8) + [0x0A]
        for _ in 0..<5 { try record.withUnsafeBufferPointer { try file.write(record: $0) } }
        file.close()
        #expect(folder.names == ["t"])
        #expect(try FileIO.readFile(path) == record)
    }

    @Test("an existing file is appended to and counts towards max_bytes")
    func appendsAfterRestart() throws {
        let folder = try TemporaryFolder()
        let path = folder.path + "/t"
        try FileIO.writeFile(path, String(repeating: "b", count: 1_000))
        let file = try RotatingTraceFile.open(path: path, maxBytes: 1_024, keep: 1)
        let record = Array("0123456789abcdefghijklmnopqrstuvwxyz\n".utf8)
        try record.withUnsafeBufferPointer { try file.write(record: $0) }
        file.close()
        #expect(folder.names == ["t", "t.1"])
        #expect(try FileIO.readFile(path + ".1").count == 1_000)
        #expect(try FileIO.readFile(path) == record)
    }

    @Test("a symbolic link, a FIFO or a file with a second name is refused, and left as it was")
    func unsafeFilesRefused() throws {
        let folder = try TemporaryFolder()
        let target = folder.path + "/target"
        try FileIO.writeFile(target, "secret")
        try FileIO.symlink(target: target, at: folder.path + "/link")
        #expect(throws: TraceError.self) {
            try RotatingTraceFile.open(path: folder.path + "/link", maxBytes: 4_096, keep: 1)
        }
        #expect(mkfifo(folder.path + "/fifo", 0o600) == 0)
        let fifo = #expect(throws: TraceError.self) {
            try RotatingTraceFile.open(path: folder.path + "/fifo", maxBytes: 4_096, keep: 1)
        }
        #expect(fifo?.description.contains("FIFO") == true)
        try FileIO.link(target, as: folder.path + "/hard")
        let hard = #expect(throws: TraceError.self) {
            try RotatingTraceFile.open(path: folder.path + "/hard", maxBytes: 4_096, keep: 1)
        }
        #expect(hard?.description.contains("hard link") == true)
        #expect(FileIO.readText(target) == "secret")
    }
}

extension String {
    fileprivate func paddedTo(_ width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
