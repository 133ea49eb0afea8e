import AccessoryConfig
import AccessorySimulator
import AccessoryTestSupport
import Glibc
import IOLoop
import SystemCalls
import Testing

@testable import AccessoryCore

@Suite("pty views: reload", .serialized)
struct ViewReloadTests {
    static func yaml(_ dir: String, echoViews: String, otherViews: String = "") -> String {
        """
        accessories:
          - name: echo
            path: {sim:echo}
            reconnect: {initial_ms: 20, max_ms: 200}
            views:
        \(echoViews.replacingOccurrences(of: "{views}", with: dir))
          - name: other
            path: {sim:other}
            reconnect: {initial_ms: 20, max_ms: 200}
            views: [\(otherViews.replacingOccurrences(of: "{views}", with: dir))]
        """
    }

    static let sims = ["echo": SimulatorConfiguration(name: "echo"), "other": SimulatorConfiguration(name: "other")]

    func view(_ h: ViewHarness, _ name: String) -> PtyView? {
        let r = h.core.registry
        let path = h.viewDir + "/" + name
        return Wait.onLoop(h.core.loop) { r.views.views.first { $0.link.path == path } }.flatMap { $0 }
    }

    func accessory(_ h: ViewHarness, _ name: String) -> Accessory? {
        let r = h.core.registry
        return Wait.onLoop(h.core.loop) { r.accessory(named: name) }.flatMap { $0 }
    }

    @Test("an unchanged view keeps its pty and its program; changed views are made again, removed ones go")
    func reconcile() throws {
        let two = "      - {pty: {views}/keep, mode: monitor}\n      - {pty: {views}/change, mode: monitor}"
        let h = try ViewHarness(sims: Self.sims) { Self.yaml($0, echoViews: two) }
        #expect(h.core.waitReady("echo") && h.core.waitReady("other"))
        let fd = try #require(h.open("keep"))
        defer { close(fd) }
        let kept = try #require(view(h, "keep"))
        let changed = try #require(view(h, "change"))
        let echo = accessory(h, "echo")
        let other = accessory(h, "other")

        let next = Self.yaml(
            h.viewDir,
            echoViews: "      - {pty: {views}/keep, mode: monitor}\n      - {pty: {views}/change, mode: shared}",
            otherViews: "{pty: {views}/new, mode: monitor}"
        )
        let summary = try h.core.reload(next)
        // Views alone changed: no accessory is replaced.
        #expect(summary.unchanged.sorted() == ["echo", "other"])
        #expect(accessory(h, "echo") === echo && accessory(h, "other") === other)
        #expect(view(h, "keep") === kept)
        #expect(view(h, "change") !== changed && view(h, "change")?.settings.mode == .shared)
        #expect(view(h, "new") != nil)
        #expect(try FileIO.readLink(h.viewDir + "/change") == view(h, "change")?.slavePath)
        // The kept view's program still gets the accessory's frames on the file it had open.
        let client = RecordingOrigin(clientID: 1)
        h.core.request(
            #"{"jsonrpc":"2.0","id":1,"method":"write","params":{"device":"echo","data":"still"}}"#,
            from: client
        )
        #expect(String(decoding: h.read(fd, atLeast: 6), as: UTF8.self) == "still\n")

        _ = try h.core.reload(Self.yaml(h.viewDir, echoViews: "      - {pty: {views}/keep, mode: monitor}"))
        #expect(view(h, "change") == nil && view(h, "new") == nil)
        #expect((try? FileIO.status(ofPath: h.viewDir + "/change")) == nil)
        #expect((try? FileIO.status(ofPath: h.viewDir + "/new")) == nil)
        #expect(view(h, "keep") === kept)
    }

    @Test("a reload that replaces the accessory (a setting changed) keeps its views")
    func accessoryReplaced() throws {
        let one = "      - {pty: {views}/sh, mode: shared}"
        let h = try ViewHarness(sims: Self.sims) { Self.yaml($0, echoViews: one) }
        #expect(h.core.waitReady("echo"))
        let fd = try #require(h.open("sh"))
        defer { close(fd) }
        let before = try #require(view(h, "sh"))
        let echo = accessory(h, "echo")
        let changed = Self.yaml(h.viewDir, echoViews: one).replacingOccurrences(
            of: "reconnect: {initial_ms: 20, max_ms: 200}\n    views:\n",
            with: "reconnect: {initial_ms: 30, max_ms: 200}\n    views:\n"
        )
        let summary = try h.core.reload(changed)
        #expect(summary.changed == ["echo"])
        #expect(accessory(h, "echo") !== echo && view(h, "sh") === before)
        #expect(h.core.waitReady("echo"))
        h.write(fd, "through\n")
        #expect(String(decoding: h.read(fd, atLeast: 8), as: UTF8.self) == "through\n")
    }
}
