import Glibc

/// What a person needs to know when a call fails for lack of file descriptors: which limit was
/// hit and its current value, so that a log line or an error names the setting to raise.
///
/// Threading: stateless; any thread (`getrlimit` reads the process's limit at the time of the call).
public enum DescriptorLimit {
    /// The process's `RLIMIT_NOFILE` (soft, hard), or nil if it cannot be read.
    public static func current() -> (soft: UInt64, hard: UInt64)? {
        var limit = rlimit()
        guard getrlimit(__rlimit_resource_t(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return (UInt64(limit.rlim_cur), UInt64(limit.rlim_max))
    }

    /// The sentence naming the limit behind `errno`: `EMFILE` is this process's descriptor limit,
    /// `ENFILE` the system's; nil for any other error.
    public static func explanation(for errno: Errno) -> String? {
        switch errno {
        case .tooManyOpenFiles:
            let value = current().map { "RLIMIT_NOFILE \(Self.describe($0.soft)), hard \(Self.describe($0.hard))" }
            return "the daemon's file-descriptor limit is reached (\(value ?? "RLIMIT_NOFILE unknown"));"
                + " raise LimitNOFILE= in its unit (or `ulimit -n`)"
        case .tooManyOpenFilesInSystem:
            return "the system's file limit is reached (fs.file-max)"
        default:
            return nil
        }
    }

    /// `RLIM_INFINITY` is all ones on Linux.
    private static func describe(_ value: UInt64) -> String {
        value == UInt64.max ? "unlimited" : String(value)
    }
}
