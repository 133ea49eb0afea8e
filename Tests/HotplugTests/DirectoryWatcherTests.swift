import AccessoryTestSupport
import Glibc
import IOLoop
import SystemCalls
import Testing

@testable import Hotplug

@Suite("by-id folder watcher (inotify)", .serialized)
struct DirectoryWatcherTests {
    @Test("rename temporaries by name: a leading dot, a .tmp end, .tmp- anywhere (bytes)")
    func temporaryNames() {
        for name in [".#usb-a", "usb-a.tmp", "usb-a.tmp-k3j", "x.tmp-", "é.tmp-ü", ".tmp-"] {
            #expect(DirectoryWatcher.isTemporary(name), "\(name)")
        }
        for name in ["usb-a", "usb-a.tmpx", "usb-a.tm-p", "tmp-a", "", "é", "a.tm", "usb.tmp.a"] {
            #expect(!DirectoryWatcher.isTemporary(name), "\(name)")
        }
        #expect(DirectoryWatcher.contains("abc", bytes: ""))
        #expect(!DirectoryWatcher.contains("", bytes: "a"))
    }

    @Test("start lists the links present; files, folders and rename temporaries are not links")
    func presentAtStart() throws {
        let h = try WatchHarness()
        defer { h.close() }
        let dir = h.base + "/by-id"
        try FileIO.makeDirectory(dir)
        try FileIO.symlink(target: h.slaves[0], at: dir + "/usb-a")
        try FileIO.symlink(target: h.slaves[1], at: dir + "/usb-b")
        try FileIO.symlink(target: h.slaves[0], at: dir + "/.#usb-c8f2a")
        try FileIO.symlink(target: h.slaves[0], at: dir + "/usb-d.tmp-k3j")
        try FileIO.makeDirectory(dir + "/sub")
        let file = try FileIO.open(dir + "/notes", flags: O_CREAT | O_WRONLY, mode: 0o600)
        file.close()
        let w = h.watcher(dir + "/")
        defer { w.stop() }
        #expect(try w.start() == [dir + "/usb-a", dir + "/usb-b"])
        h.settle()
        #expect(h.events.isEmpty, "what start() returned is not reported again")
    }

    @Test("a link created then deleted")
    func createDelete() throws {
        let h = try WatchHarness()
        defer { h.close() }
        let w = h.watcher(h.base)
        defer { w.stop() }
        #expect(try w.start().isEmpty)
        try FileIO.symlink(target: h.slaves[0], at: h.base + "/gps")
        #expect(h.run(untilEvents: 1))
        try FileIO.unlink(h.base + "/gps")
        #expect(h.run(untilEvents: 2))
        #expect(h.events == [.appeared(path: h.base + "/gps"), .disappeared(path: h.base + "/gps")])
        // The link leads to a device that opens.
        try FileIO.symlink(target: h.slaves[1], at: h.base + "/meter")
        #expect(h.run(untilEvents: 3))
        #expect(h.events.last == .appeared(path: h.base + "/meter"))
        let fd = try FileIO.open(h.base + "/meter", flags: O_RDWR | O_NOCTTY | O_NONBLOCK)
        fd.close()
    }

    @Test("atomic publish: made under a temporary name and renamed in; replacing it is reported again")
    func atomicRenameIn() throws {
        let h = try WatchHarness()
        defer { h.close() }
        let w = h.watcher(h.base)
        defer { w.stop() }
        _ = try w.start()
        try FileIO.symlink(target: h.slaves[0], at: h.base + "/modem.tmp-1")
        try FileIO.rename(h.base + "/modem.tmp-1", to: h.base + "/modem")
        #expect(h.run(untilEvents: 1))
        try FileIO.symlink(target: h.slaves[1], at: h.base + "/.#modem2x")
        try FileIO.rename(h.base + "/.#modem2x", to: h.base + "/modem")
        #expect(h.run(untilEvents: 2))
        h.settle()
        #expect(h.events == [.appeared(path: h.base + "/modem"), .appeared(path: h.base + "/modem")])
        #expect(try FileIO.readLink(h.base + "/modem") == h.slaves[1])
    }

    @Test("a link renamed out of the folder and back in")
    func renameOutAndIn() throws {
        let h = try WatchHarness()
        defer { h.close() }
        let dir = h.base + "/by-id"
        try FileIO.makeDirectory(dir)
        try FileIO.symlink(target: h.slaves[0], at: dir + "/scanner")
        let w = h.watcher(dir)
        defer { w.stop() }
        #expect(try w.start() == [dir + "/scanner"])
        try FileIO.rename(dir + "/scanner", to: h.base + "/scanner")
        #expect(h.run(untilEvents: 1))
        try FileIO.rename(h.base + "/scanner", to: dir + "/scanner")
        #expect(h.run(untilEvents: 2))
        #expect(h.events == [.disappeared(path: dir + "/scanner"), .appeared(path: dir + "/scanner")])
    }

    @Test("the folder and its parent made after start, step by step")
    func folderCreatedLaterStepwise() throws {
        let h = try WatchHarness()
        defer { h.close() }
        let dir = h.base + "/serial/by-id"
        let w = h.watcher(dir)
        defer { w.stop() }
        #expect(try w.start().isEmpty)
        try FileIO.makeDirectory(h.base + "/serial")
        h.settle(milliseconds: 50)
        try FileIO.makeDirectory(dir)
        h.settle(milliseconds: 50)
        #expect(h.events.isEmpty)
        try FileIO.symlink(target: h.slaves[0], at: dir + "/usb-x")
        #expect(h.run(untilEvents: 1))
        #expect(h.events == [.appeared(path: dir + "/usb-x")])
    }

    @Test("the folder made with its links before the watcher reacts: they are found by reading it")
    func folderCreatedLaterAtOnce() throws {
        let h = try WatchHarness()
        defer { h.close() }
        let dir = h.base + "/serial/by-id"
        let w = h.watcher(dir)
        defer { w.stop() }
        #expect(try w.start().isEmpty)
        try FileIO.makeDirectory(h.base + "/serial")
        try FileIO.makeDirectory(dir)
        try FileIO.symlink(target: h.slaves[0], at: dir + "/usb-x")
        try FileIO.symlink(target: h.slaves[1], at: dir + "/usb-y")
        #expect(h.run(untilEvents: 2))
        h.settle()
        #expect(h.events == [.appeared(path: dir + "/usb-x"), .appeared(path: dir + "/usb-y")])
    }

    @Test("the folder removed (its links gone), then made again")
    func folderRemovedAndRecreated() throws {
        let h = try WatchHarness()
        defer { h.close() }
        let dir = h.base + "/by-id"
        try FileIO.makeDirectory(dir)
        try FileIO.symlink(target: h.slaves[0], at: dir + "/a")
        let w = h.watcher(dir)
        defer { w.stop() }
        #expect(try w.start() == [dir + "/a"])
        // Renamed away with its link inside: only the folder's own event tells.
        try FileIO.rename(dir, to: h.base + "/old")
        #expect(h.run(untilEvents: 1))
        #expect(h.events == [.disappeared(path: dir + "/a")])
        try FileIO.unlink(h.base + "/old/a")
        try FileIO.removeDirectory(h.base + "/old")
        h.settle(milliseconds: 50)
        #expect(h.events.count == 1, "nothing about the moved-away folder's contents")
        try FileIO.makeDirectory(dir)
        try FileIO.symlink(target: h.slaves[1], at: dir + "/b")
        #expect(h.run(untilEvents: 2))
        // Deleted in place: the link first, then the folder.
        try FileIO.unlink(dir + "/b")
        try FileIO.removeDirectory(dir)
        #expect(h.run(untilEvents: 3))
        try FileIO.makeDirectory(dir)
        try FileIO.symlink(target: h.slaves[0], at: dir + "/c")
        #expect(h.run(untilEvents: 4))
        h.settle()
        #expect(
            h.events == [
                .disappeared(path: dir + "/a"), .appeared(path: dir + "/b"), .disappeared(path: dir + "/b"),
                .appeared(path: dir + "/c"),
            ]
        )
    }

    @Test("many links at once: each reported exactly once, both ways")
    func manyLinks() throws {
        let h = try WatchHarness()
        defer { h.close() }
        let w = h.watcher(h.base)
        defer { w.stop() }
        _ = try w.start()
        let names = (0..<300).map { "usb-dev\($0)" }
        for (i, name) in names.enumerated() { try FileIO.symlink(target: h.slaves[i % 2], at: h.base + "/" + name) }
        #expect(h.run(untilEvents: names.count, seconds: 10))
        h.settle()
        let expected = Set(names.map { DirectoryWatcher.Event.appeared(path: h.base + "/" + $0) })
        #expect(h.events.count == names.count)
        #expect(Set(h.events) == expected)
        h.events.removeAll()
        for name in names { try FileIO.unlink(h.base + "/" + name) }
        #expect(h.run(untilEvents: names.count, seconds: 10))
        h.settle()
        #expect(h.events.count == names.count)
        #expect(Set(h.events) == Set(names.map { DirectoryWatcher.Event.disappeared(path: h.base + "/" + $0) }))
    }

    @Test("nothing is reported after stop, even from inside the callback")
    func stopEndsEvents() throws {
        let h = try WatchHarness()
        defer { h.close() }
        var w: DirectoryWatcher?
        var seen: [DirectoryWatcher.Event] = []
        w = DirectoryWatcher(directory: h.base, loop: h.loop) { event in
            seen.append(event)
            w?.stop()
        }
        _ = try w?.start()
        try FileIO.symlink(target: h.slaves[0], at: h.base + "/one")
        try FileIO.symlink(target: h.slaves[0], at: h.base + "/two")
        let deadline = h.loop.now + .seconds(5)
        h.loop.run(while: { seen.isEmpty && h.loop.now < deadline })
        h.settle()
        try FileIO.symlink(target: h.slaves[0], at: h.base + "/three")
        h.settle()
        #expect(seen == [.appeared(path: h.base + "/one")])
        w = nil  // the callback holds `w`: break the cycle
    }

    @Test("a started watcher dropped without stop leaves the loop: no callback, its descriptor closed")
    func droppedWithoutStop() throws {
        let h = try WatchHarness()
        defer { h.close() }
        let openBefore = try FileIO.listDirectory("/proc/self/fd").count
        var w: DirectoryWatcher? = h.watcher(h.base)
        _ = try w?.start()
        #expect(try FileIO.listDirectory("/proc/self/fd").count == openBefore + 1)
        w = nil
        #expect(try FileIO.listDirectory("/proc/self/fd").count == openBefore)
        try FileIO.symlink(target: h.slaves[0], at: h.base + "/late")
        h.settle()
        #expect(h.events.isEmpty)
        let again = h.watcher(h.base)
        defer { again.stop() }
        #expect(try again.start() == [h.base + "/late"])
    }

    @Test("when no watch can be placed, the links are reported gone and the watcher retries")
    func retryAfterWatchFailure() throws {
        let h = try WatchHarness()
        defer { h.close() }
        let dir = h.base + "/by-id"
        try FileIO.makeDirectory(dir)
        try FileIO.symlink(target: h.slaves[0], at: dir + "/a")
        let w = h.watcher(dir)
        defer { w.stop() }
        w.retryDelay = .milliseconds(100)
        #expect(try w.start() == [dir + "/a"])
        let inotifyFD = w.source?.fd ?? -1
        let token = FaultInjection.install { name, fd in
            name == .inotify_add_watch && fd == inotifyFD ? .error(.noSpace) : nil
        }
        try FileIO.rename(dir, to: h.base + "/moved")
        #expect(h.run(untilEvents: 1))
        #expect(h.events == [.disappeared(path: dir + "/a")])
        try FileIO.makeDirectory(dir)
        try FileIO.symlink(target: h.slaves[1], at: dir + "/b")
        h.settle(milliseconds: 300)
        #expect(h.events.count == 1, "still failing: nothing more to report")
        FaultInjection.remove(token)
        #expect(h.run(untilEvents: 2))
        #expect(h.events.last == .appeared(path: dir + "/b"))
        try FileIO.symlink(target: h.slaves[0], at: dir + "/c")
        #expect(h.run(untilEvents: 3), "watching again")
        #expect(h.events.last == .appeared(path: dir + "/c"))
    }

    @Test("a file where a folder should be: waits on the parent until a folder replaces it")
    func fileInTheWay() throws {
        let h = try WatchHarness()
        defer { h.close() }
        let file = try FileIO.open(h.base + "/serial", flags: O_CREAT | O_WRONLY, mode: 0o600)
        file.close()
        let w = h.watcher(h.base + "/serial/by-id")
        defer { w.stop() }
        #expect(try w.start().isEmpty)
        try FileIO.unlink(h.base + "/serial")
        try FileIO.makeDirectory(h.base + "/serial")
        try FileIO.makeDirectory(h.base + "/serial/by-id")
        try FileIO.symlink(target: h.slaves[0], at: h.base + "/serial/by-id/usb-z")
        #expect(h.run(untilEvents: 1))
        #expect(h.events == [.appeared(path: h.base + "/serial/by-id/usb-z")])
    }

    @Test("a folder that cannot be watched gives a clear error")
    func unwatchable() throws {
        let h = try WatchHarness(ptys: 0)
        defer { h.close() }
        let long = h.base + "/" + String(repeating: "x", count: 5000)
        let w = h.watcher(long)
        #expect {
            _ = try w.start()
        } throws: { error in
            guard let e = error as? HotplugError, case .cannotWatch(let path, let cause) = e else { return false }
            return path == long && cause.errno == .fileNameTooLong
                && e.description.hasPrefix("cannot watch \(long): inotify_add_watch: ")
        }
        w.stop()
    }
}
