import Glibc
import SystemCalls
import Testing

/// Running out of descriptors names the limit that was hit and its current value, in every
/// error that a failed call turns into (``SyscallError``'s description).
///
/// Threading: each test on its own test thread; reads the process's limit, never changes it.
@Suite struct DescriptorLimitTests {
    @Test("EMFILE names RLIMIT_NOFILE with this process's values and the setting to raise")
    func emfileNamesTheProcessLimit() throws {
        var limit = rlimit()
        #expect(getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0)
        let text = SyscallError(.accept4, .tooManyOpenFiles).description
        #expect(text.hasPrefix("accept4: "), "\(text)")
        #expect(text.contains("file-descriptor limit is reached (RLIMIT_NOFILE \(limit.rlim_cur), hard "), "\(text)")
        #expect(text.contains("LimitNOFILE="), "\(text)")
        #expect(SyscallError(.open, .tooManyOpenFiles).description.contains("RLIMIT_NOFILE"))
    }

    @Test("ENFILE names the system's limit; other errors are unchanged")
    func otherErrors() {
        #expect(SyscallError(.posix_openpt, .tooManyOpenFilesInSystem).description.contains("fs.file-max"))
        let plain = SyscallError(.open, .noSuchFileOrDirectory).description
        #expect(!plain.contains("limit"), "\(plain)")
        #expect(plain.hasSuffix("(errno \(ENOENT))"), "\(plain)")
    }
}
