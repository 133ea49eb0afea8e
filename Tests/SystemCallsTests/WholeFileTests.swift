import Glibc
import SystemCalls
import SystemPackage
import Testing

@Suite("whole-file reads and writes")
struct WholeFileTests {
    @Test("writeFile then readFile round-trips; past the limit is EFBIG; a missing file is ENOENT, readText empty")
    func roundTripLimitAndMissing() throws {
        let dir = try FileIO.makeTemporaryDirectory(prefix: "/tmp/accessoryd-wholefile-")
        let path = dir + "/f.txt"
        defer {
            unlink(path)
            rmdir(dir)
        }
        let text = String(repeating: "0123456789abcdef", count: 10_000)  // 160,000 bytes: several reads
        try FileIO.writeFile(path, text)
        #expect(try FileIO.readFile(path) == Array(text.utf8))
        #expect(FileIO.readText(path) == text)
        #expect(throws: SyscallError(.read, .fileTooLarge)) { try FileIO.readFile(path, limit: 100_000) }
        #expect(throws: SyscallError(.open, .noSuchFileOrDirectory)) { try FileIO.readFile(dir + "/missing") }
        #expect(FileIO.readText(dir + "/missing") == "")
        try FileIO.writeFile(path, "short")
        #expect(FileIO.readText(path) == "short", "writeFile truncates")
    }
}
