import IOLoop
import SystemCalls

/// Watches one folder of device links (`/dev/serial/by-id`, or any configured folder) with
/// inotify, for where there is no udev or a path is configured instead of an identity.
///
/// Reports a link (or device node) appearing: created, or renamed in — the atomic way udev and
/// `accessory-sim` publish links, which is reported again when it replaces an existing link, as
/// that is a new device behind the same name; and disappearing: deleted, or renamed out. Names
/// starting with `.` or with a `.tmp` suffix or `.tmp-` part are temporaries of such renames and
/// are ignored. When the folder does not exist yet, the nearest existing parent folder is watched
/// until it is created; when it is removed, its links are reported gone and the wait starts again.
/// If the kernel's event queue overflows, the folder is read again and the difference reported.
///
/// Device loop only: make it, start it, stop it on the loop's thread; `onEvent` runs there.
package final class DirectoryWatcher {
    /// A change in the watched folder, with the link's full path. Any thread (a value).
    package enum Event: Sendable, Hashable {
        case appeared(path: String)
        case disappeared(path: String)
    }

    /// What the single inotify watch is on at the moment.
    enum Target: Equatable {
        /// The folder itself.
        case folder
        /// `parent`, the nearest existing ancestor, waiting for `child` to be created in it.
        case ancestor(parent: String, child: String)
    }

    let directory: String
    let loop: IOLoop
    let onEvent: (Event) -> Void
    var source: FDSource?
    var watch: CInt?
    var target: Target?
    /// The names in the folder reported as present (and not yet as gone).
    var known: Set<String> = []
    /// How long to wait before trying again when no watch could be placed at all.
    var retryDelay: Duration = .seconds(1)
    var retryTimer: LoopTimer?

    /// Prepares a watcher of `directory`; nothing happens until ``start()``. Device loop only.
    package init(directory: String, loop: IOLoop, onEvent: @escaping (Event) -> Void) {
        self.directory = Self.normalized(directory)
        self.loop = loop
        self.onEvent = onEvent
    }

    /// A watcher dropped without ``stop()`` still closes its inotify descriptor and leaves the
    /// loop, so the loop's thread must be the one letting it go.
    deinit {
        retryTimer?.cancel()
        source?.cancel()
    }

    /// Starts watching and returns the paths of the links present now (sorted; empty when the
    /// folder does not exist yet). Those are not reported again as events. Call once. Device loop
    /// only.
    package func start() throws(HotplugError) -> [String] {
        loop.preconditionInLoop()
        precondition(source == nil, "DirectoryWatcher.start() called twice")
        do {
            let fd = try Inotify.create()
            source = try loop.addSource(owning: fd, interest: .readable) { [unowned self] _ in self.readEvents() }
        } catch {
            throw .cannotWatch(path: directory, error)
        }
        do {
            known = Set(try attach())
        } catch {
            stop()
            throw error
        }
        return known.sorted().map(path(of:))
    }

    /// Stops watching (closes the inotify descriptor). No event is delivered afterwards, even from
    /// inside `onEvent`. Idempotent. Device loop only.
    package func stop() {
        loop.preconditionInLoop()
        retryTimer?.cancel()
        retryTimer = nil
        source?.cancel()
        source = nil
        watch = nil
        target = nil
    }

    func path(of name: String) -> String { directory == "/" ? "/" + name : directory + "/" + name }

    /// True for the names atomic link publishing uses before the rename: udev's `.#name…`, and
    /// `name.tmp` / `name.tmp-…`. Any thread.
    static func isTemporary(_ name: String) -> Bool {
        name.hasPrefix(".") || name.hasSuffix(".tmp") || contains(name, bytes: ".tmp-")
    }

    /// Whether `part`'s UTF-8 bytes occur in `text`'s. Not `String.contains(_:)`: with a string
    /// argument that one is `_StringProcessing`'s, whose code the daemon otherwise runs only for
    /// configured patterns (docs/packaging.md, "Footprint"); file names are bytes anyway.
    static func contains(_ text: String, bytes part: String) -> Bool {
        let haystack = Array(text.utf8)
        let needle = Array(part.utf8)
        guard haystack.count >= needle.count else { return false }
        return (0...haystack.count - needle.count).contains { start in
            haystack[start..<start + needle.count].elementsEqual(needle)
        }
    }

    static func normalized(_ path: String) -> String {
        var p = path
        while p.count > 1 && p.hasSuffix("/") { p.removeLast() }
        return p
    }

    private func readEvents() {
        guard let fd = source?.fd else { return }
        let events: [Inotify.Event]
        do {
            guard let read = try Inotify.readEvents(fd) else { return }
            events = read
        } catch {
            // Not expected (the buffer fits any event, EINTR is retried); stop rather than spin on
            // a level-triggered descriptor that keeps failing.
            stop()
            return
        }
        for event in events {
            // `stop()` from inside `onEvent` ends the batch.
            guard source != nil else { return }
            handle(event)
        }
    }
}
