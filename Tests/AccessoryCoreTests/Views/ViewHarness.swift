import AccessoryConfig
import AccessorySimulator
import AccessoryTestSupport
import ControlProtocol
import Glibc
import IOLoop
import JSONCodec
import SystemCalls

@testable import AccessoryCore

/// A ``CoreHarness`` whose accessories have pty views in a folder of the test's own, and what a
/// program does with a view: open it, write, read (bounded in time). Test thread.
final class ViewHarness: @unchecked Sendable {  // @unchecked: set in init, read after.
    let core: CoreHarness
    let viewDir: String

    /// `yaml` may use `{views}` for the views' folder and `{sim:NAME}` as ``CoreHarness`` does.
    init(sims: [String: SimulatorConfiguration], yaml: (String) -> String) throws {
        viewDir = try FileIO.makeTemporaryDirectory(prefix: "/tmp/accessoryd-views-")
        core = try CoreHarness(sims: sims, yaml: yaml(viewDir))
    }

    deinit {
        let r = core.registry
        _ = Wait.onLoop(core.loop) { r.views.closeAll() }
        for name in (try? FileIO.listDirectory(viewDir)) ?? [] { try? FileIO.unlink(viewDir + "/" + name) }
        try? FileIO.removeDirectory(viewDir)
    }

    /// The view published at `name` in the views' folder, read on the loop.
    func status(_ name: String) -> JSONValue? {
        let r = core.registry
        let path = viewDir + "/" + name
        let encoded = Wait.onLoop(core.loop) { () -> [UInt8]? in
            guard let view = r.views.views.first(where: { $0.link.path == path }) else { return nil }
            var bytes: [UInt8] = []
            view.status().encodeJSON(into: &bytes)
            return bytes
        }
        return encoded.flatMap { $0 }.flatMap { try? JSONParser.parse($0) }
    }

    func counter(_ name: String, _ key: String) -> Int64 {
        status(name)?["counters"]?[key]?.int64Value ?? -1
    }

    /// Opens the view as a program would (non-blocking, not as controlling tty) and waits until
    /// the daemon has seen it open.
    func open(_ name: String) -> CInt? {
        guard let fd = try? FileIO.open(viewDir + "/" + name, flags: O_RDWR | O_NOCTTY | O_NONBLOCK).release() else {
            return nil
        }
        guard Wait.until(seconds: 5, { self.status(name)?["open"]?.boolValue == true }) else {
            Glibc.close(fd)
            return nil
        }
        return fd
    }

    /// Waits until `fd` has given at least `count` bytes (or `seconds` passed); returns them.
    func read(_ fd: CInt, atLeast count: Int, seconds: Double = 5) -> [UInt8] {
        var got: [UInt8] = []
        _ = Wait.until(seconds: seconds) {
            while let bytes = try? FileIO.read(fd, max: 4096), !bytes.isEmpty { got += bytes }
            return got.count >= count
        }
        return got
    }

    /// What `fd` gives within `seconds` (for "nothing comes").
    func readFor(_ fd: CInt, seconds: Double) -> [UInt8] {
        read(fd, atLeast: Int.max, seconds: seconds)
    }

    func write(_ fd: CInt, _ text: String) {
        _ = try? FileIO.writeAll(fd, Array(text.utf8))
    }
}

extension ViewHarness {
    /// An echo accessory only uid 65533 may use, with two views of `mode`: `nobody` (owner and
    /// group 65534, refused by `access:`) and `allowed` (owner 65533).
    static func accessPair(mode: String) throws -> ViewHarness {
        try ViewHarness(sims: ["echo": SimulatorConfiguration(name: "echo")]) { dir in
            """
            accessories:
              - name: echo
                path: {sim:echo}
                access: {users: [65533]}
                views:
                  - {pty: \(dir)/nobody, mode: \(mode), owner: 65534, group: 65534}
                  - {pty: \(dir)/allowed, mode: \(mode), owner: 65533}
            """
        }
    }
}
