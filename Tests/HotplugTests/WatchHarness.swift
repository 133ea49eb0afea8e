import AccessoryTestSupport
import Hotplug
import IOLoop
import SystemCalls

/// A temporary folder, a loop on the test's thread, and the events a watcher reported.
///
/// Test thread only (the loop belongs to it).
final class WatchHarness {
    let loop: IOLoop
    /// A fresh private folder under /tmp, removed with everything in it by ``close()``.
    let base: String
    var events: [DirectoryWatcher.Event] = []
    /// The pty masters' descriptor numbers (owned here; an array cannot hold `OwnedFD`).
    private var masters: [CInt] = []
    /// Slave paths of ptys kept open until ``close()``: real device nodes for links to point at.
    private(set) var slaves: [String] = []

    init(ptys: Int = 2) throws {
        loop = try IOLoop.forCurrentThread(name: "watch-test")
        base = try FileIO.makeTemporaryDirectory(prefix: "/tmp/hotplug-watch-")
        for _ in 0..<ptys {
            let pair = try PseudoTerminal.open()
            slaves.append(pair.slavePath)
            masters.append(pair.master.release())
        }
    }

    func watcher(_ directory: String) -> DirectoryWatcher {
        DirectoryWatcher(directory: directory, loop: loop) { [unowned self] in self.events.append($0) }
    }

    /// Runs the loop until `count` events arrived or `seconds` passed; true if they arrived.
    @discardableResult
    func run(untilEvents count: Int, seconds: Double = 5) -> Bool {
        let deadline = loop.now + .milliseconds(Int(seconds * 1000))
        loop.run(while: { self.events.count < count && self.loop.now < deadline })
        return events.count >= count
    }

    /// Runs the loop for `milliseconds` (to show that nothing more arrives).
    func settle(milliseconds: Int = 150) {
        loop.run(until: loop.now + .milliseconds(milliseconds))
    }

    func close() {
        Self.removeTree(base)
        for fd in masters { OwnedFD(adopting: fd).close() }
        masters.removeAll()
        loop.shutdown()
    }

    /// Removes `path` and, for a folder, everything under it (links are removed, not followed).
    static func removeTree(_ path: String) {
        guard let status = try? FileIO.status(ofPath: path) else { return }
        if status.kind == .directory {
            for name in (try? FileIO.listDirectory(path)) ?? [] { removeTree(path + "/" + name) }
            try? FileIO.removeDirectory(path)
        } else {
            try? FileIO.unlink(path)
        }
    }
}
