import AccessoryConfig
import AccessoryTestSupport
import ControlProtocol
import IOLoop
import Testing

@testable import AccessoryCore

/// AccessoryCore's device-loop entry points check their thread in debug builds
/// (`LoopScheduler.assertInLoop()`): one called from another thread traps. Each call runs in a
/// child process (an exit test), once on the device loop (it returns) and once from the test's
/// own thread (it traps), so the trap is the thread check and nothing else the call does.
@Suite("device-loop thread checks")
struct ThreadCheckTests {
    @Test("an accessory's entry point runs on the device loop and traps off it (debug builds)")
    func offLoopCallTraps() async {
        await #expect(processExitsWith: .success) {
            Self.askStatus(onDeviceLoop: true)
        }
        #if DEBUG
            await #expect(processExitsWith: .failure) {
                Self.askStatus(onDeviceLoop: false)
            }
        #endif
    }

    /// Asks an accessory (not opened) for its `device.status`, as the registry does, from the
    /// device loop or from this thread. Nothing else on that path checks the thread.
    static func askStatus(onDeviceLoop: Bool) {
        let loop = try! IOLoop.spawn(name: "thread-check")
        let yaml = """
            accessories:
              - name: absent
                path: /nonexistent/accessoryd-thread-check
            """
        let configuration = try! ConfigurationLoader.load(yaml: yaml, file: "thread-check.yaml")
        let registry = AccessoryRegistry(loop: loop, configuration: configuration, devicePaths: [:]) { _, _ in }
        let accessory = registry.accessory(named: "absent")!
        if onDeviceLoop {
            let state = Wait.onLoop(loop) { accessory.status(views: []).state }
            precondition(state == .absent, "the device loop did not run the call")
        } else {
            _ = accessory.status(views: [])
        }
        loop.shutdown()
    }
}
