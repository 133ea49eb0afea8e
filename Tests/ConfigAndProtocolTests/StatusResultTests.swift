import ControlProtocol
import JSONCodec
import Testing

/// The typed results of `device.status`, `daemon.status` and `clients.list` (and the `{device,
/// lines}` of `control` and `device.lines`) write exactly what the daemon wrote before they were
/// typed: the same objects, built as `JSONValue`s member by member as the daemon built them, are
/// the reference. Every optional member is shown both present and absent.
@Suite("device.status, daemon.status and clients.list results")
struct StatusResultTests {
    func encoded(_ value: some JSONEncodable) -> String {
        var buffer: [UInt8] = []
        value.encodeJSON(into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    /// A name that needs escaping, to show names go through the string encoder.
    let device = "dev \"1\"\u{1}é"

    static let lines = ModemLineState(dtr: true, rts: false, cts: true, dsr: false, dcd: true, ri: false)
    static let linesObject: JSONObject = [
        "dtr": true, "rts": false, "cts": true, "dsr": false, "dcd": true, "ri": false,
    ]

    static func counters(latency: Bool) -> (DeviceStatusResult.Counters, JSONObject) {
        var c = DeviceStatusResult.Counters()
        var o = JSONObject()
        let values: [(String, WritableKeyPath<DeviceStatusResult.Counters, UInt64>)] = [
            ("bytes_in", \.bytesIn), ("bytes_out", \.bytesOut), ("frames_in", \.framesIn),
            ("frames_out", \.framesOut), ("frames_dropped", \.framesDropped),
            ("unsolicited_frames", \.unsolicitedFrames), ("requests_ok", \.requestsOK),
            ("requests_failed", \.requestsFailed), ("requests_cancelled", \.requestsCancelled),
            ("requests_timed_out", \.requestsTimedOut), ("opens", \.opens), ("open_attempts", \.openAttempts),
            ("removals", \.removals), ("resyncs", \.resyncs), ("resync_discarded_frames", \.resyncDiscardedFrames),
            ("probe_failures", \.probeFailures),
        ]
        for (index, (key, path)) in values.enumerated() {
            c[keyPath: path] = UInt64(index * 1_000_003)
            o.append(key, .integer(Int64(index * 1_000_003)))
        }
        if latency {
            c.latency = .init(p50Ms: 0.25, p99Ms: 12.0)
            o.append("latency_p50_ms", .number(.double(0.25)))
            o.append("latency_p99_ms", .number(.double(12.0)))
        }
        return (c, o)
    }

    static func viewCounters() -> (ViewStatus.Counters, JSONObject) {
        var c = ViewStatus.Counters()
        var o = JSONObject()
        let values: [(String, WritableKeyPath<ViewStatus.Counters, UInt64>)] = [
            ("bytes_to_program", \.bytesToProgram), ("bytes_from_program", \.bytesFromProgram),
            ("chunks_to_program", \.chunksToProgram), ("frames_to_device", \.framesToDevice),
            ("replies", \.replies), ("dropped_bytes", \.droppedBytes), ("dropped_chunks", \.droppedChunks),
            ("discarded_bytes", \.discardedBytes), ("refused_frames", \.refusedFrames),
            ("refused_bytes", \.refusedBytes), ("not_open_bytes", \.notOpenBytes), ("opens", \.opens),
            ("closes", \.closes), ("sessions", \.sessions), ("accessory_changes", \.accessoryChanges),
        ]
        for (index, (key, path)) in values.enumerated() {
            c[keyPath: path] = UInt64(index + 1)
            o.append(key, .integer(Int64(index + 1)))
        }
        return (c, o)
    }

    @Test("device.status with every optional member")
    func deviceStatusFull() {
        let (counters, countersObject) = Self.counters(latency: true)
        let (viewCounters, viewCountersObject) = Self.viewCounters()
        let view = ViewStatus(
            path: "/run/accessoryd/tty/gps",
            pty: "/dev/pts/7",
            mode: "exclusive",
            open: true,
            clientID: 1 << 62,
            uid: 1000,
            gid: 20,
            perm: "660",
            session: "attached",
            bufferedBytes: 12,
            counters: viewCounters
        )
        let status = DeviceStatusResult(
            name: device,
            state: .resyncing,
            reason: "waiting for the late answer after a transact that timed out",
            resync: .init(waitingFor: "late answer", after: "a transact", sinceMs: 5, untilMs: 995, probeAttempt: 2),
            transport: "serial",
            path: "/dev/ttyUSB0",
            identity: .match(vendorID: "1a86", productID: nil, serial: "A1", byID: nil),
            settings: .init(
                baud: 115_200,
                dataBits: 8,
                parity: "none",
                stopBits: 1,
                flow: "none",
                framing: "line",
                until: "^OK$",
                timeoutMs: 2000
            ),
            queueDepth: 3,
            locked: true,
            lines: Self.lines,
            counters: counters,
            lastError: "EIO",
            trace: .init(
                file: "/var/log/t",
                format: "text",
                writer: .init(tracedBytes: 10, droppedBytes: 1, lastError: "ENOSPC")
            ),
            views: [.view(view), .failed(path: "/run/x", error: "no such folder")]
        )
        var o: JSONObject = [:]
        o.append("name", .string(device))
        o.append("state", "resyncing")
        o.append("reason", "waiting for the late answer after a transact that timed out")
        o.append(
            "resync",
            .object([
                "waiting_for": "late answer", "after": "a transact", "since_ms": .int(5), "until_ms": .int(995),
                "probe_attempt": .int(2),
            ])
        )
        o.append("transport", "serial")
        o.append("path", "/dev/ttyUSB0")
        o.append("identity", .object(["vendor_id": "1a86", "serial": "A1"]))
        o.append(
            "settings",
            .object([
                "baud": .int(115_200), "data_bits": .int(8), "parity": "none", "stop_bits": .int(1), "flow": "none",
                "framing": "line", "until": "^OK$", "timeout_ms": .int(2000),
            ])
        )
        o.append("queue_depth", .int(3))
        o.append("locked", true)
        o.append("lines", .object(Self.linesObject))
        o.append("counters", .object(countersObject))
        o.append("last_error", "EIO")
        o.append(
            "trace",
            .object([
                "file": "/var/log/t", "format": "text", "active": true, "traced_bytes": .integer(10),
                "dropped_bytes": .integer(1), "last_error": "ENOSPC",
            ])
        )
        let viewObject: JSONObject = [
            "path": "/run/accessoryd/tty/gps", "pty": "/dev/pts/7", "mode": "exclusive", "open": true,
            "client_id": .integer(1 << 62), "uid": .int(1000), "gid": .int(20), "perm": "660", "session": "attached",
            "buffered_bytes": .int(12), "counters": .object(viewCountersObject),
        ]
        o.append("views", .array([.object(viewObject), .object(["path": "/run/x", "error": "no such folder"])]))
        #expect(encoded(status) == encoded(JSONValue.object(o)))
    }

    @Test("device.status with every optional member absent or null")
    func deviceStatusMinimal() {
        let (counters, countersObject) = Self.counters(latency: false)
        let (viewCounters, viewCountersObject) = Self.viewCounters()
        let view = ViewStatus(
            path: "/p",
            pty: "/dev/pts/1",
            mode: "monitor",
            open: false,
            clientID: 7,
            uid: 0,
            gid: 0,
            perm: "666",
            session: nil,
            bufferedBytes: 0,
            counters: viewCounters
        )
        let status = DeviceStatusResult(
            name: "gps",
            state: .absent,
            reason: "not opened yet",
            resync: nil,
            transport: "rfcomm",
            path: nil,
            identity: .rfcomm(address: "00:11:22:33:44:55", channel: 1),
            settings: .init(
                baud: 9600,
                dataBits: 7,
                parity: "even",
                stopBits: 2,
                flow: "rtscts",
                framing: "slip",
                until: nil,
                timeoutMs: 1000
            ),
            queueDepth: 0,
            locked: false,
            lines: nil,
            counters: counters,
            lastError: nil,
            trace: .init(file: "/t", format: "jsonl", writer: nil),
            views: [.view(view)]
        )
        var o: JSONObject = [:]
        o.append("name", "gps")
        o.append("state", "absent")
        o.append("reason", "not opened yet")
        o.append("transport", "rfcomm")
        o.append("identity", .object(["address": "00:11:22:33:44:55", "channel": .int(1)]))
        o.append(
            "settings",
            .object([
                "baud": .int(9600), "data_bits": .int(7), "parity": "even", "stop_bits": .int(2), "flow": "rtscts",
                "framing": "slip", "timeout_ms": .int(1000),
            ])
        )
        o.append("queue_depth", .int(0))
        o.append("locked", false)
        o.append("lines", .null)
        o.append("counters", .object(countersObject))
        o.append("last_error", .null)
        o.append("trace", .object(["file": "/t", "format": "jsonl", "active": false]))
        let viewObject: JSONObject = [
            "path": "/p", "pty": "/dev/pts/1", "mode": "monitor", "open": false, "client_id": .integer(7),
            "uid": .int(0), "gid": .int(0), "perm": "666", "buffered_bytes": .int(0),
            "counters": .object(viewCountersObject),
        ]
        o.append("views", .array([.object(viewObject)]))
        #expect(encoded(status) == encoded(JSONValue.object(o)))
        var untraced = status
        untraced.trace = nil
        untraced.views = []
        o["trace"] = nil
        o["views"] = .array([])
        #expect(encoded(untraced) == encoded(JSONValue.object(o)))
    }

    @Test("device.status identities: path, simulated, an empty match")
    func identities() {
        #expect(encoded(DeviceStatusResult.Identity.path("/dev/ttyS0")) == #"{"path":"/dev/ttyS0"}"#)
        #expect(encoded(DeviceStatusResult.Identity.simulated("nmea")) == #"{"simulated":"nmea"}"#)
        let all = DeviceStatusResult.Identity.match(vendorID: "a", productID: "b", serial: "c", byID: "d")
        #expect(encoded(all) == #"{"vendor_id":"a","product_id":"b","serial":"c","by_id":"d"}"#)
        #expect(
            encoded(DeviceStatusResult.Identity.match(vendorID: nil, productID: nil, serial: nil, byID: nil)) == "{}"
        )
    }

    @Test("daemon.status: an administrator's, with and without the server; anyone else's; without a daemon")
    func daemonStatus() {
        let server = DaemonStatusResult.Server(
            clients: 1,
            clientsAccepted: 9,
            clientsRejected: 0,
            requestsDecoded: 123,
            decodeErrors: 2,
            inputDeferrals: 5,
            clientsTimedOut: 6,
            clientsAcceptedInReserve: 7,
            batchesRefused: 8,
            repliesTooLarge: 10
        )
        var status = DaemonStatusResult(
            version: "0.2.0",
            process: .init(pid: 4242, uptimeS: 61, server: server)
        )
        status.accessories = 4
        status.accessoriesReady = 3
        status.requestsInFlight = 1
        status.views = [ViewSummary(device: device, path: "/run/v", mode: "shared", open: true, clientID: 1 << 62)]
        var o: JSONObject = ["version": .string("0.2.0")]
        o.append("pid", .int(4242))
        o.append("uptime_s", .int(61))
        o.append("clients", .int(1))
        o.append("clients_accepted", .int(9))
        o.append("clients_rejected", .int(0))
        o.append("requests_decoded", .int(123))
        o.append("decode_errors", .int(2))
        o.append("input_deferrals", .int(5))
        o.append("clients_timed_out", .int(6))
        o.append("clients_accepted_in_reserve", .int(7))
        o.append("batches_refused", .int(8))
        o.append("replies_too_large", .int(10))
        let tail: [(String, JSONValue)] = [
            ("accessories", .int(4)), ("accessories_ready", .int(3)), ("requests_in_flight", .int(1)),
            (
                "views",
                .array([
                    .object([
                        "device": .string(device), "path": "/run/v", "mode": "shared", "open": true,
                        "client_id": .integer(1 << 62),
                    ])
                ])
            ),
        ]
        for (key, value) in tail { o.append(key, value) }
        #expect(encoded(status) == encoded(JSONValue.object(o)))

        status.process?.server = nil
        var withoutServer: JSONObject = ["version": "0.2.0", "pid": .int(4242), "uptime_s": .int(61)]
        for (key, value) in tail { withoutServer.append(key, value) }
        #expect(encoded(status) == encoded(JSONValue.object(withoutServer)))

        status.process = nil
        var someone: JSONObject = ["version": "0.2.0"]
        for (key, value) in tail { someone.append(key, value) }
        #expect(encoded(status) == encoded(JSONValue.object(someone)))

        status.version = nil
        #expect(encoded(status) == encoded(JSONValue.object(JSONObject(tail))))
        #expect(
            encoded(DaemonStatusResult())
                == #"{"accessories":0,"accessories_ready":0,"requests_in_flight":0,"views":[]}"#
        )
    }

    @Test("clients.list: subscribed to all, to some, to none; unknown user and command")
    func clientsList() {
        let clients = [
            ClientSummary(
                id: 1,
                pid: 300,
                uid: 0,
                user: "root",
                command: "accessoryctl",
                connectedSinceMs: 1_700_000_000_000,
                locks: [device, "b"],
                attached: "gps",
                subscribed: .all,
                requestsInFlight: 2
            ),
            ClientSummary(
                id: 2,
                pid: 301,
                uid: 1000,
                user: nil,
                command: nil,
                connectedSinceMs: 5,
                locks: [],
                attached: nil,
                subscribed: .devices(["a", "b"]),
                requestsInFlight: 0
            ),
            ClientSummary(
                id: 1 << 62,
                pid: 0,
                uid: 0,
                user: "root",
                command: "view /run/v",
                connectedSinceMs: 6,
                locks: [],
                attached: nil,
                subscribed: .devices([]),
                requestsInFlight: 0
            ),
        ]
        func object(
            _ id: Int64,
            _ pid: Int,
            _ uid: Int,
            _ user: JSONValue,
            _ command: JSONValue,
            _ since: Int64,
            _ locks: [String],
            _ attached: JSONValue,
            _ subscribed: JSONValue,
            _ requests: Int
        ) -> JSONValue {
            var o = JSONObject()
            o.append("id", .integer(id))
            o.append("pid", .int(pid))
            o.append("uid", .int(uid))
            o.append("user", user)
            o.append("command", command)
            o.append("connected_since_ms", .integer(since))
            o.append("locks", .array(locks.map(JSONValue.string)))
            o.append("attached", attached)
            o.append("subscribed", subscribed)
            o.append("requests_in_flight", .int(requests))
            return .object(o)
        }
        let reference: JSONValue = .object([
            "clients": .array([
                object(1, 300, 0, "root", "accessoryctl", 1_700_000_000_000, [device, "b"], "gps", "all", 2),
                object(2, 301, 1000, .null, .null, 5, [], .null, .array(["a", "b"]), 0),
                object(1 << 62, 0, 0, "root", "view /run/v", 6, [], .null, .array([]), 0),
            ])
        ])
        #expect(encoded(ClientsListResult(clients: clients)) == encoded(reference))
        #expect(encoded(ClientsListResult(clients: [])) == #"{"clients":[]}"#)
    }

    @Test("control's result and device.lines' params: {device, lines}, lines null when unknown")
    func deviceLines() {
        let reference: JSONObject = ["device": .string(device), "lines": .object(Self.linesObject)]
        #expect(encoded(DeviceLines(device: device, lines: Self.lines)) == encoded(JSONValue.object(reference)))
        #expect(encoded(DeviceLines(device: "gps", lines: nil)) == #"{"device":"gps","lines":null}"#)
    }
}
