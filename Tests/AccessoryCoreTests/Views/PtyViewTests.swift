import AccessoryConfig
import AccessorySimulator
import AccessoryTestSupport
import ControlProtocol
import Glibc
import IOLoop
import SystemCalls
import Testing

@testable import AccessoryCore

@Suite("pty views: monitor, shared, exclusive", .serialized)
struct PtyViewTests {
    static func harness(views: String, limits: String = "") throws -> ViewHarness {
        let h = try ViewHarness(sims: ["echo": SimulatorConfiguration(name: "echo")]) { dir in
            """
            \(limits)
            accessories:
              - name: echo
                path: {sim:echo}
                response: {timeout_ms: 1000}
                reconnect: {initial_ms: 20, max_ms: 200}
                views:
            \(views.replacingOccurrences(of: "{views}", with: dir))
            """
        }
        #expect(h.core.waitReady("echo"))
        return h
    }

    @Test("monitor: frames no request claimed reach the program re-framed; its writes are discarded, counted")
    func monitor() throws {
        let h = try Self.harness(views: "      - {pty: {views}/mon, mode: monitor}")
        let fd = try #require(h.open("mon"))
        defer { close(fd) }
        let client = RecordingOrigin(clientID: 1)
        // A `write` claims no answer: the echo comes back unclaimed, as device.data does.
        h.core.request(
            #"{"jsonrpc":"2.0","id":1,"method":"write","params":{"device":"echo","data":"hello"}}"#,
            from: client
        )
        #expect(String(decoding: h.read(fd, atLeast: 6), as: UTF8.self) == "hello\n")
        h.write(fd, "ignored\n")
        #expect(Wait.until(seconds: 5) { h.counter("mon", "discarded_bytes") == 8 })
        // A transact's reply is its own: the view never sees it.
        h.core.request(
            #"{"jsonrpc":"2.0","id":2,"method":"transact","params":{"device":"echo","data":"mine"}}"#,
            from: client
        )
        #expect(frameTexts(client.response(2)?.value) == ["mine"])
        #expect(h.readFor(fd, seconds: 0.3).isEmpty)
        #expect(h.counter("mon", "bytes_to_program") == 6)
        // The view is a client: in clients.list (named by its path) and daemon.status.
        h.core.request(#"{"jsonrpc":"2.0","id":3,"method":"clients.list"}"#, from: client)
        let listed = client.response(3)?.value?["clients"]?.arrayValue ?? []
        #expect(listed.contains { $0["command"]?.stringValue == "view \(h.viewDir)/mon" })
        h.core.request(#"{"jsonrpc":"2.0","id":4,"method":"daemon.status"}"#, from: client)
        let summary = client.response(4)?.value?["views"]?.arrayValue ?? []
        #expect(summary.count == 1 && summary.first?["mode"]?.stringValue == "monitor")
        #expect(summary.first?["open"]?.boolValue == true && summary.first?["device"]?.stringValue == "echo")
    }

    @Test("monitor: a program that does not read loses the oldest frames, counted; the accessory serves on")
    func monitorSlowReader() throws {
        let h = try Self.harness(views: "      - {pty: {views}/mon, mode: monitor, buffer_bytes: 1024}")
        let fd = try #require(h.open("mon"))
        defer { close(fd) }
        let client = RecordingOrigin(clientID: 1)
        let line = String(repeating: "x", count: 200)
        // In batches within the queue's depth, each answered before the next.
        for batch in 0..<10 {
            for i in 1...40 {
                h.core.request(
                    #"{"jsonrpc":"2.0","id":\#(batch * 40 + i),"method":"write","params":{"device":"echo","data":"\#(line)"}}"#,
                    from: client
                )
            }
            #expect(client.response(Int64(batch * 40 + 40))?.value != nil)
        }
        // Every echo has come back (a transact sent earlier would take a late one as its answer).
        #expect(Wait.until(seconds: 10) { h.counter("mon", "chunks_to_program") == 400 })
        #expect(h.counter("mon", "dropped_bytes") > 0)
        h.core.request(
            #"{"jsonrpc":"2.0","id":999,"method":"transact","params":{"device":"echo","data":"ok"}}"#,
            from: client
        )
        #expect(frameTexts(client.response(999)?.value) == ["ok"])
        #expect((h.status("mon")?["buffered_bytes"]?.int64Value ?? .max) <= 1024)
        // What is read is whole lines: the newest, never half a frame.
        let got = String(decoding: h.readFor(fd, seconds: 0.5), as: UTF8.self)
        let lines = got.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count > 1 && lines.last == "")
        #expect(lines.dropLast().allSatisfy { $0 == line }, "read: \(lines.map(\.count))")
    }

    @Test("shared: a program's lines are requests in the queue; each reply goes back to it and nobody else's")
    func shared() throws {
        let h = try Self.harness(views: "      - {pty: {views}/sh, mode: shared}")
        let fd = try #require(h.open("sh"))
        defer { close(fd) }
        let clients = (1...4).map { RecordingOrigin(clientID: UInt64($0)) }
        h.write(fd, "view-0\r\nview-1\n")
        for round in 0..<5 {
            for (i, c) in clients.enumerated() {
                h.core.request(
                    #"{"jsonrpc":"2.0","id":\#(round),"method":"transact","params":{"device":"echo","data":"c\#(i)-\#(round)"}}"#,
                    from: c
                )
            }
            h.write(fd, "view-\(round + 2)\n")
        }
        let got = String(decoding: h.read(fd, atLeast: 7 * 7), as: UTF8.self)
        #expect(got == (0..<7).map { "view-\($0)\n" }.joined())
        for (i, c) in clients.enumerated() {
            for round in 0..<5 { #expect(frameTexts(c.response(Int64(round))?.value) == ["c\(i)-\(round)"]) }
        }
        #expect(h.counter("sh", "frames_to_device") == 7 && h.counter("sh", "replies") == 7)
    }

    @Test("shared: the view's owner and group are its credentials for access; a refused frame is counted")
    func sharedAccess() throws {
        let h = try ViewHarness.accessPair(mode: "shared")
        #expect(h.core.waitReady("echo"))
        let nobody = try #require(h.open("nobody"))
        let allowed = try #require(h.open("allowed"))
        defer {
            close(nobody)
            close(allowed)
        }
        h.write(nobody, "a\nb\nc\n")
        #expect(Wait.until(seconds: 5) { h.counter("nobody", "refused_frames") == 3 })
        #expect(h.readFor(nobody, seconds: 0.2).isEmpty)
        h.write(allowed, "fine\n")
        #expect(String(decoding: h.read(allowed, atLeast: 5), as: UTF8.self) == "fine\n")
        #expect(h.status("nobody")?["uid"]?.int64Value == 65534)
    }

    @Test("exclusive: the first write takes a raw session; others wait until the program closes the view")
    func exclusive() throws {
        let h = try Self.harness(views: "      - {pty: {views}/x, mode: exclusive}")
        let fd = try #require(h.open("x"))
        h.write(fd, "abc\n")  // The echo accessory answers whole lines.
        #expect(String(decoding: h.read(fd, atLeast: 4), as: UTF8.self) == "abc\n")
        #expect(h.status("x")?["session"]?.stringValue == "attached")
        let other = RecordingOrigin(clientID: 1)
        h.core.request(
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"echo","data":"later","wait_ms":5000}}"#,
            from: other
        )
        #expect(other.response(1, seconds: 0.4) == nil)
        close(fd)
        #expect(frameTexts(other.response(1)?.value) == ["later"])
        #expect(h.status("x")?["session"]?.stringValue == "idle")
        #expect(h.counter("x", "sessions") == 1)
    }

    @Test("exclusive: an idle session ends (limits.attach_idle_ms) without a notice in the program's stream")
    func exclusiveIdle() throws {
        let h = try Self.harness(
            views: "      - {pty: {views}/x, mode: exclusive}",
            limits: "limits: {attach_idle_ms: 300}"
        )
        let fd = try #require(h.open("x"))
        defer { close(fd) }
        h.write(fd, "a\n")
        #expect(h.read(fd, atLeast: 2) == Array("a\n".utf8))
        #expect(Wait.until(seconds: 5) { h.status("x")?["session"]?.stringValue == "idle" })
        #expect(h.readFor(fd, seconds: 0.2).isEmpty)
        let other = RecordingOrigin(clientID: 1)
        h.core.request(
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"echo","data":"free"}}"#,
            from: other
        )
        #expect(frameTexts(other.response(1)?.value) == ["free"])
        // The view is still there: the next write takes a new session.
        h.write(fd, "b\n")
        #expect(h.read(fd, atLeast: 2) == Array("b\n".utf8))
        #expect(h.counter("x", "sessions") == 2)
    }

    @Test("exclusive: the view's own idle_ms ends a session the daemon-wide limit would keep")
    func exclusiveViewIdle() throws {
        let h = try Self.harness(views: "      - {pty: {views}/x, mode: exclusive, idle_ms: 300}")
        let fd = try #require(h.open("x"))
        defer { close(fd) }
        h.write(fd, "a\n")
        #expect(h.read(fd, atLeast: 2) == Array("a\n".utf8))
        #expect(h.status("x")?["session"]?.stringValue == "attached")
        #expect(Wait.until(seconds: 5) { h.status("x")?["session"]?.stringValue == "idle" })
        let other = RecordingOrigin(clientID: 1)
        h.core.request(
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"echo","data":"free"}}"#,
            from: other
        )
        #expect(frameTexts(other.response(1)?.value) == ["free"])
    }

    @Test("unplug and replug never close the pty: writes are refused meanwhile, and data flows again after")
    func survivesReplug() throws {
        let h = try Self.harness(
            views: "      - {pty: {views}/mon, mode: monitor}\n      - {pty: {views}/sh, mode: shared}"
        )
        let mon = try #require(h.open("mon"))
        let sh = try #require(h.open("sh"))
        defer {
            close(mon)
            close(sh)
        }
        let pty = h.status("sh")?["pty"]?.stringValue
        h.core.simulators[0].hangUp(reappearAfter: .milliseconds(500))
        #expect(Wait.until(seconds: 5) { h.core.state("echo") != .ready })
        h.write(sh, "lost\n")
        #expect(Wait.until(seconds: 5) { h.counter("sh", "refused_frames") == 1 })
        #expect(h.core.waitReady("echo"))
        #expect(h.status("sh")?["pty"]?.stringValue == pty)
        #expect(h.counter("sh", "accessory_changes") >= 2)
        h.write(sh, "back\n")
        #expect(String(decoding: h.read(sh, atLeast: 5), as: UTF8.self) == "back\n")
        let client = RecordingOrigin(clientID: 1)
        h.core.request(
            #"{"jsonrpc":"2.0","id":1,"method":"write","params":{"device":"echo","data":"again"}}"#,
            from: client
        )
        #expect(String(decoding: h.read(mon, atLeast: 6), as: UTF8.self) == "again\n")
    }
}
