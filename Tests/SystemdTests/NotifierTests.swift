import AccessoryTestSupport
import Glibc
import SystemCalls
import Systemd
import Testing

@Suite("ServiceNotifier (sd_notify without libsystemd)")
struct NotifierTests {
    @Test("delivers to a path socket, with our pid in SCM_CREDENTIALS", arguments: [false, true])
    func delivers(abstract: Bool) throws {
        let harness = try NotifySocketHarness(abstract: abstract)
        defer { harness.close() }
        let notifier = try #require(try ServiceNotifier.fromEnvironment(["NOTIFY_SOCKET": harness.notifySocket]))
        #expect(notifier.addressText == harness.notifySocket)
        try notifier.send(.ready + .status("1 accessory ready; 0 clients"))
        try notifier.send(.watchdog)
        var received: [NotifySocketHarness.Message] = []
        for _ in 0..<20 where received.count < 2 { received += try harness.receive(seconds: 0.5) }
        #expect(received.count == 2)
        guard received.count == 2 else { return }
        #expect(received[0].fields.map(\.name) == ["READY", "STATUS"])
        #expect(received[0].value("STATUS") == "1 accessory ready; 0 clients")
        #expect(received[1].value("WATCHDOG") == "1")
        #expect(received.allSatisfy { $0.senderPID == getpid() })
    }

    @Test("no NOTIFY_SOCKET, or an empty one: no notifier (notifying is a no-op)")
    func unset() throws {
        #expect(try ServiceNotifier.fromEnvironment([:]) == nil)
        #expect(try ServiceNotifier.fromEnvironment(["NOTIFY_SOCKET": ""]) == nil)
    }

    @Test(
        "a NOTIFY_SOCKET that is not an address is a clear error",
        arguments: ["relative/path", "@", "vsock:2:1234", "/" + String(repeating: "x", count: 107)]
    )
    func badAddress(value: String) {
        #expect {
            _ = try ServiceNotifier.fromEnvironment(["NOTIFY_SOCKET": value])
        } throws: { error in
            guard case .badNotifySocket(let v, _) = error as? SystemdError else { return false }
            return v == value && "\(error)".contains("NOTIFY_SOCKET=")
        }
    }

    @Test("the longest address that fits is accepted; abstract names count without the @")
    func lengthLimit() throws {
        let longest = "/" + String(repeating: "x", count: 106)
        #expect(try ServiceNotifier.address(notifySocket: longest) == .path(longest))
        let name = String(repeating: "y", count: 107)
        #expect(try ServiceNotifier.address(notifySocket: "@" + name) == .abstract(name))
    }

    @Test("sending to a socket nobody is bound to throws notifyFailed (no crash)")
    func nobodyListening() throws {
        let folder = try FileIO.makeTemporaryDirectory(prefix: "/tmp/accessoryd-notify-")
        defer { try? FileIO.removeDirectory(folder) }
        let notifier = try #require(try ServiceNotifier.fromEnvironment(["NOTIFY_SOCKET": folder + "/gone"]))
        #expect {
            try notifier.send(.ready)
        } throws: { error in
            guard case .notifyFailed(let address, let e) = error as? SystemdError else { return false }
            return address == folder + "/gone" && e.errno == .noSuchFileOrDirectory
        }
        let abstract = try #require(
            try ServiceNotifier.fromEnvironment(["NOTIFY_SOCKET": "@accessoryd-test-nobody-\(getpid())"])
        )
        #expect {
            try abstract.send(.ready)
        } throws: { error in
            guard case .notifyFailed(_, let e) = error as? SystemdError else { return false }
            return e.errno == .connectionRefused
        }
    }
}
