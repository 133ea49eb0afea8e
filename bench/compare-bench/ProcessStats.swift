import Glibc
import SystemCalls

/// CPU time and memory of a process and its descendants, read from /proc.
///
/// Threading: a value. Main thread.
struct ProcessStats {
    /// Nanoseconds on a CPU, all threads of the process and of its living descendants
    /// (`/proc/PID/task/TID/schedstat`: exact, unlike the 10 ms ticks of `/proc/PID/stat`).
    let cpuNanoseconds: UInt64
    /// Resident set now and at its peak (`VmRSS`, `VmHWM`), and the private part (`RssAnon`), in KiB;
    /// summed over the process and its descendants.
    let rssKiB: Int
    let peakRSSKiB: Int
    let anonymousKiB: Int

    init(_ pid: pid_t) {
        var cpu: UInt64 = 0
        var rss = 0
        var peak = 0
        var anonymous = 0
        for process in ProcessStats.tree(pid) {
            for task in ProcessStats.entries("/proc/\(process)/task") {
                let schedstat = FileIO.readText("/proc/\(process)/task/\(task)/schedstat")
                cpu += schedstat.split(separator: " ").first.flatMap { UInt64($0) } ?? 0
            }
            let status = FileIO.readText("/proc/\(process)/status")
            rss += ProcessStats.field("VmRSS", in: status)
            peak += ProcessStats.field("VmHWM", in: status)
            anonymous += ProcessStats.field("RssAnon", in: status)
        }
        cpuNanoseconds = cpu
        rssKiB = rss
        peakRSSKiB = peak
        anonymousKiB = anonymous
    }

    /// `pid` and its descendants (from `/proc/PID/task/TID/children`).
    static func tree(_ pid: pid_t) -> [pid_t] {
        var all: [pid_t] = [pid]
        var index = 0
        while index < all.count && index < 1_000 {
            let process = all[index]
            for task in entries("/proc/\(process)/task") {
                all += FileIO.readText("/proc/\(process)/task/\(task)/children").split(separator: " ").compactMap {
                    pid_t($0.trimmingPrefix(" "))
                }
            }
            index += 1
        }
        return all
    }

    /// The numeric names in a /proc folder.
    static func entries(_ path: String) -> [String] {
        guard let folder = opendir(path) else { return [] }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let first = name.first, first.isNumber { names.append(name) }
        }
        return names
    }

    /// A `Name:   123 kB` line of /proc/PID/status, in KiB (0 when absent).
    static func field(_ name: String, in status: String) -> Int {
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            return Int(line.dropFirst(name.count + 1).split(whereSeparator: { $0 == " " || $0 == "\t" }).first ?? "")
                ?? 0
        }
        return 0
    }
}
