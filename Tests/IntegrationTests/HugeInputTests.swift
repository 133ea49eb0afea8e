import ControlProtocol
import Glibc
import JSONCodec
import SystemCalls
import Testing

/// Input sized to exhaust memory: a 100 MB request line, and an accessory whose length prefix
/// claims 2 GiB. Each is refused without buffering it, and the daemon keeps serving.
///
/// Threading: each test runs on its own test thread and owns its scenario's processes.
@Suite struct HugeInputTests {
    @Test func aHundredMegabyteLineIsCutOffWithoutBeingBuffered() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.startDaemon(accessories: [s.lineAccessory("echo")])  // default max_line_bytes: 65536
        let pid = try #require(s.daemon?.pid)
        let bystander = try s.connect()
        #expect(try bystander.call("transact", Params.transfer("echo", "before")).frameTexts == ["before"])
        let residentBefore = try #require(ProcFS.residentKiB(pid))

        // One request line of 100 MB: a `write` whose data never ends, sent 64 KiB at a time
        // until the daemon hangs up (or, if it never did, all of it). `sent` counts whole chunks.
        let hog = try s.connect()
        let head = Array(#"{"jsonrpc":"2.0","id":1,"method":"write","params":{"device":"echo","data":""#.utf8)
        let chunk = [UInt8](repeating: 0x78, count: 64 << 10)
        var sent = 0
        var refusedAt: String?
        let clock = Stopwatch()
        do {
            try hog.send(raw: head)
            sent += head.count
            while sent < 100_000_000 {
                try hog.send(raw: chunk, seconds: 10)
                sent += chunk.count
            }
        } catch {
            refusedAt = "\(error)"
        }
        #expect(hog.waitUntilClosed(seconds: 10), "still connected after \(sent) bytes")
        let peak = try #require(ProcFS.peakResidentKiB(pid))
        print(
            "100 MB line: the daemon hung up after \(sent) bytes in \(clock.elapsed) s (\(refusedAt ?? "no send error")); "
                + "RSS \(residentBefore) KiB before, peak \(peak) KiB"
        )
        #expect(sent < 16 << 20, "the daemon took \(sent) bytes of one line before hanging up")
        #expect(peak - residentBefore < 32 << 10, "peak RSS grew by \(peak - residentBefore) KiB")
        #expect(try bystander.call("transact", Params.transfer("echo", "after")).frameTexts == ["after"])
        let logged = Deadline(seconds: 5)
        while !s.log.contains("longer than 65536 bytes") && !logged.hasPassed { usleep(10_000) }
        #expect(s.log.contains("longer than 65536 bytes"), "\(s.log)")
        let fresh = try s.connect()
        #expect(try fresh.call("transact", Params.transfer("echo", "newcomer")).frameTexts == ["newcomer"])
        hog.close()
        fresh.close()
        bystander.close()
    }

    @Test func aTwoGibibyteLengthClaimIsDroppedAndCountedNotAllocated() throws {
        let s = try Scenario()
        defer { s.finish() }
        // The test plays the accessory on a pty master; the daemon opens the slave.
        let pty = try PseudoTerminal.open()
        let master = pty.master.rawValue
        try s.simulator("echo")
        try s.startDaemon(
            accessories: [
                s.lineAccessory(
                    "sensor",
                    path: pty.slavePath,
                    framing: "{type: length_prefixed, width: 4, endian: big, max_frame_bytes: 4096}"
                ),
                s.lineAccessory("echo"),
            ],
            ready: ["sensor", "echo"]
        )
        let pid = try #require(s.daemon?.pid)
        let client = try s.connect()
        _ = try client.result("subscribe", ["device": "sensor", "events": ["data"]])
        let residentBefore = try #require(ProcFS.residentKiB(pid))

        // A good frame, so we know the path works, then a header claiming 2^31 bytes and some of them.
        _ = try FileIO.write(master, [0, 0, 0, 3] + Array("abc".utf8))
        let first = try client.notification { $0.method == "device.data" }
        #expect(first.params["data"] == "abc")
        _ = try FileIO.write(master, [0x80, 0, 0, 0] + [UInt8](repeating: 0x55, count: 1000))
        var counters: JSONValue?
        _ = try waitForStatus(client, "sensor", seconds: 10) {
            counters = $0["counters"]
            return counters?["frames_dropped"] == 1
        }
        #expect(counters?["frames_dropped"] == 1, "\(String(describing: counters))")
        let status = try client.result("device.status", Params.device("sensor"))
        let lastError = status["counters"]?["last_error"]?.stringValue ?? status["last_error"]?.stringValue ?? ""
        #expect(lastError.contains("2147483648"), "last_error: \(lastError)")
        #expect(s.log.contains("2147483648-byte frame"), "\(s.log)")
        let peak = try #require(ProcFS.peakResidentKiB(pid))
        print("2 GiB length claim: dropped, frames_dropped 1; RSS \(residentBefore) KiB before, peak \(peak) KiB")
        #expect(peak - residentBefore < 16 << 10, "peak RSS grew by \(peak - residentBefore) KiB")
        // The accessory is still ready and the daemon serves the others.
        #expect(try s.state(of: "sensor", via: client) == "ready")
        #expect(try client.call("transact", Params.transfer("echo", "still here")).frameTexts == ["still here"])
        client.close()
        _ = consume pty
    }
}
