import Glibc

/// What `/proc/<pid>` says about a child: its memory and CPU time, for tests that check that
/// hostile input costs the daemon neither.
///
/// Threading: stateless. Any thread.
enum ProcFS {
    /// A `VmRSS`/`VmHWM`-style line of `/proc/<pid>/status`, in KiB (nil if unreadable).
    static func statusKiB(_ pid: pid_t, _ field: String) -> Int? {
        let text = TemporaryDirectory.contents(of: "/proc/\(pid)/status")
        for line in text.split(separator: "\n") where line.hasPrefix(field + ":") {
            return Int(line.dropFirst(field.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
        }
        return nil
    }

    /// Resident memory now, KiB.
    static func residentKiB(_ pid: pid_t) -> Int? { statusKiB(pid, "VmRSS") }

    /// The most resident memory the process ever had, KiB.
    static func peakResidentKiB(_ pid: pid_t) -> Int? { statusKiB(pid, "VmHWM") }

    /// User plus system CPU time, in seconds (fields 14 and 15 of `/proc/<pid>/stat`).
    static func cpuSeconds(_ pid: pid_t) -> Double? {
        let text = TemporaryDirectory.contents(of: "/proc/\(pid)/stat")
        // The command name (field 2) may hold spaces; the fields after it follow its `)`.
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // fields[0] is field 3 (state); utime is field 14, stime field 15.
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// How many descriptors the process has open.
    static func openDescriptors(_ pid: pid_t) -> Int? {
        guard let dir = opendir("/proc/\(pid)/fd") else { return nil }
        defer { closedir(dir) }
        var count = 0
        while readdir(dir) != nil { count += 1 }
        return count - 2  // "." and ".."
    }
}
