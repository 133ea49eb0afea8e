import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// Configured device paths that are not devices: a regular file and a directory. Each accessory
/// gets a clear state and last error, requests to it fail with 1002, and the others are served.
///
/// Threading: the test's thread; it owns the scenario's processes.
@Suite struct DevicePathTests {
    @Test func aRegularFileOrADirectoryAsTheDevicePathIsAClearErrorAndOthersAreServed() throws {
        let s = try Scenario()
        defer { s.finish() }
        let file = try s.directory.write("not-a-tty", "just a file\n")
        let folder = s.directory.file("a-folder")
        try #require(mkdir(folder, 0o755) == 0)
        try s.simulator("echo")
        try s.startDaemon(
            accessories: [
                s.lineAccessory("file", path: file),
                s.lineAccessory("folder", path: folder),
                s.lineAccessory("echo"),
            ],
            ready: ["echo"]
        )
        let client = try s.connect()
        for (name, path) in [("file", file), ("folder", folder)] {
            let status = try client.result("device.status", Params.device(name))
            let state = status["state"]?.stringValue ?? ""
            let lastError = status["counters"]?["last_error"]?.stringValue ?? status["last_error"]?.stringValue ?? ""
            print("\(name) at \(path): state \(state), last_error \"\(lastError)\"")
            #expect(state != "ready" && state != "opening", "\(name): \(status)")
            #expect(!lastError.isEmpty, "\(name) has no last_error: \(status)")
            let r = try client.call("transact", Params.transfer(name, "x"))
            #expect(r.code == 1002, "\(name): \(r)")
            #expect(r.error?.message.contains(name) == true, "\(r)")
        }
        // The file was not written to, and the daemon serves the real accessory.
        #expect(s.directory.read("not-a-tty") == "just a file\n")
        #expect(try client.call("transact", Params.transfer("echo", "fine")).frameTexts == ["fine"])
        client.close()
    }
}
