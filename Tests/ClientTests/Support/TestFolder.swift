import Glibc
import SystemCalls

/// A temporary folder for one test's socket, removed with what it holds on ``remove()``.
///
/// Threading: any thread (immutable); remove it once, from the test.
final class TestFolder: Sendable {
    let path: String

    /// A new folder under /tmp, mode 0755 so that another user can reach a socket inside (the
    /// socket's own mode then decides).
    init() throws {
        path = try FileIO.makeTemporaryDirectory(prefix: "/tmp/client-test-")
        chmod(path, 0o755)
    }

    /// `name` inside the folder.
    func file(_ name: String) -> String { path + "/" + name }

    /// Removes the files named `names` (if present) and the folder.
    func remove(_ names: [String] = ["accessoryd.sock"]) {
        for name in names { try? FileIO.unlink(file(name)) }
        try? FileIO.removeDirectory(path)
    }
}
