import Glibc
import SystemCalls

/// Why the soak could not run (not a violation: a setup failure). Threading: a value.
struct SoakError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

/// Monotonic seconds (`CLOCK_MONOTONIC`). Any thread.
enum Clock {
    static func seconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
}

/// Small file helpers. Any thread.
enum Files {
    /// Removes the soak's folder: every file and link in it, then the folder (it holds no
    /// subfolders).
    static func removeFolder(_ path: String) {
        for name in (try? FileIO.listDirectory(path)) ?? [] { unlink(path + "/" + name) }
        rmdir(path)
    }

    /// The folder holding `path`.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }
}
