import AccessoryTestSupport
import Glibc
import SystemCalls

/// A harness failure with a sentence a person reads (what was awaited, what was seen).
///
/// Threading: a value. Any thread.
struct HarnessError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

/// A point in monotonic time after which a wait gives up.
///
/// Threading: a value. Any thread.
struct Deadline {
    let at: Double

    init(seconds: Double) { at = MonotonicNow.seconds() + seconds }

    var remaining: Double { max(0, at - MonotonicNow.seconds()) }
    var hasPassed: Bool { MonotonicNow.seconds() >= at }

    /// The remaining time as a `poll` timeout (at least 1 ms while time remains).
    var pollMilliseconds: CInt {
        let ms = remaining * 1000
        return ms <= 0 ? 0 : CInt(min(ms.rounded(.up), 60_000))
    }
}

/// Elapsed monotonic time since it was made.
///
/// Threading: a value. Any thread.
struct Stopwatch {
    let start = MonotonicNow.seconds()

    var elapsed: Double { MonotonicNow.seconds() - start }
}

/// The executables the integration tests run, found in the build products folder that holds the
/// test bundle (`.build/<triple>/debug`: `/proc/self/exe` is the `.xctest` file on Linux, or the
/// binary inside a `.xctest` bundle elsewhere), or in the folder named by `ACCESSORYD_PRODUCTS`.
///
/// Threading: constants computed once. Any thread.
enum BuiltProducts {
    static let folder: String = {
        if let override = getenv("ACCESSORYD_PRODUCTS") { return String(cString: override) }
        let me = (try? FileIO.readLink("/proc/self/exe")) ?? CommandLine.arguments[0]
        // Inside a bundle (`…/debug/X.xctest/Contents/MacOS/X`): the folder that holds the bundle.
        let components = me.split(separator: "/", omittingEmptySubsequences: false)
        if let bundle = components.dropLast().lastIndex(where: { $0.hasSuffix(".xctest") }) {
            return components[..<bundle].joined(separator: "/")
        }
        return parent(of: me)
    }()

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The path of the built executable `name`, or an error that says how to build it.
    static func executable(_ name: String) throws -> String {
        let path = folder + "/" + name
        guard access(path, X_OK) == 0 else {
            throw HarnessError(
                "\(name) is not built: expected it at \(path). Run `swift build` (or `swift build --build-tests`, "
                    + "as `make test` does) before the integration tests."
            )
        }
        return path
    }

    static func daemon() throws -> String { try executable("accessoryd") }
    static func simulator() throws -> String { try executable("accessory-sim") }
}

/// A private folder under /tmp for one test (its config, socket, pty links and logs), made
/// traversable (0755) so that a client running as another user can reach the socket.
///
/// Threading: the test's thread (the path may be read from any thread).
final class TemporaryDirectory: Sendable {
    let path: String

    init() throws {
        path = try FileIO.makeTemporaryDirectory(prefix: "/tmp/accessoryd-it-")
        try FileIO.changeMode(path, to: 0o755)
    }

    func file(_ name: String) -> String { path + "/" + name }

    /// Writes `text` to the file `name` (created or truncated). Returns its path.
    @discardableResult
    func write(_ name: String, _ text: String) throws -> String {
        let target = file(name)
        let fd = try FileIO.open(target, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o644)
        try FileIO.writeAll(fd.rawValue, Array(text.utf8))
        fd.close()
        return target
    }

    /// The text of the file `name` (best effort: empty if it cannot be read).
    func read(_ name: String) -> String { TemporaryDirectory.contents(of: file(name)) }

    static func contents(of path: String) -> String { FileIO.readText(path) }

    /// Removes the folder and everything in it (it holds only files, links, sockets and folders
    /// this test made).
    func remove() { TemporaryDirectory.removeTree(path) }

    static func removeTree(_ path: String) {
        if let dir = opendir(path) {
            var names: [String] = []
            while let entry = readdir(dir) {
                let name = withUnsafePointer(to: &entry.pointee.d_name) {
                    $0.withMemoryRebound(to: CChar.self, capacity: 256) { String(cString: $0) }
                }
                if name != "." && name != ".." { names.append(name) }
            }
            closedir(dir)
            for name in names {
                let child = path + "/" + name
                if (try? FileIO.status(ofPath: child))??.kind == .directory {
                    removeTree(child)
                } else {
                    unlink(child)
                }
            }
        }
        rmdir(path)
    }
}
