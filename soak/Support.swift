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
    static func read(_ path: String) -> String {
        guard let fd = try? FileIO.open(path, flags: O_RDONLY) else { return "" }
        var bytes: [UInt8] = []
        while let chunk = try? FileIO.read(fd.rawValue, max: 65_536), !chunk.isEmpty { bytes += chunk }
        fd.close()
        return String(decoding: bytes, as: UTF8.self)
    }

    static func write(_ path: String, _ text: String) throws {
        let fd = try FileIO.open(path, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)
        try FileIO.writeAll(fd.rawValue, Array(text.utf8))
        fd.close()
    }

    /// The names in a folder (without `.` and `..`); empty if it cannot be read.
    static func list(_ path: String) -> [String] {
        guard let dir = opendir(path) else { return [] }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafePointer(to: &entry.pointee.d_name) {
                $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Removes the soak's folder: every file and link in it, then the folder (it holds no
    /// subfolders).
    static func removeFolder(_ path: String) {
        for name in list(path) { unlink(path + "/" + name) }
        rmdir(path)
    }

    /// The folder holding `path`.
    static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return String(path[..<slash])
    }
}
