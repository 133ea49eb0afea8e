import AccessorySimulator
import AccessoryTestSupport
import Glibc
import IOLoop
import SystemCalls

/// Runs `body` with a simulated accessory started on its own spawned loop, then stops it and
/// shuts the loop down, whatever `body` does. Events are recorded in `events`.
///
/// Any thread (the test's); the accessory runs on the spawned loop.
func withSimulator<R>(
    _ configuration: SimulatorConfiguration,
    _ body: (SimulatedAccessory, Shared<[SimulatorEvent]>) throws -> R
) throws -> R {
    let loop = try IOLoop.spawn(name: "sim-test")
    defer { loop.shutdown() }
    let events = Shared<[SimulatorEvent]>([])
    let sim = try SimulatedAccessory.start(configuration, on: loop) { e in events.mutate { $0.append(e) } }
    defer { sim.stop() }
    return try body(sim, events)
}

/// A fresh private folder under /tmp, removed with everything in it (one level) by `cleanUp`.
/// Test thread only.
final class TemporaryFolder {
    let path: String
    private var names: [String] = []

    init() throws {
        path = try FileIO.makeTemporaryDirectory(prefix: "/tmp/accessory-sim-test.")
    }

    /// A path inside the folder that `cleanUp` will remove.
    func file(_ name: String) -> String {
        names.append(name)
        return path + "/" + name
    }

    /// Writes `text` to a new file in the folder and returns its path.
    func write(_ name: String, _ text: String) throws -> String {
        let p = file(name)
        let fd = try FileIO.open(p, flags: O_WRONLY | O_CREAT | O_TRUNC, mode: 0o600)
        _ = try FileIO.write(fd.rawValue, Array(text.utf8))
        return p
    }

    func cleanUp() {
        for n in names { try? FileIO.unlink(path + "/" + n) }
        try? FileIO.removeDirectory(path)
    }

    deinit { cleanUp() }
}

/// Whether a path exists as a link (dangling or not). Any thread.
func linkTarget(_ path: String) -> String? { try? FileIO.readLink(path) }
