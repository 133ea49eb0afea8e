/// The result of `device.status`: one accessory's state, identity, settings, modem lines,
/// counters, trace file and views,
/// `{name, state, reason, resync?, transport, path?, identity, settings, queue_depth, locked,
/// lines, counters, last_error, trace?, views}`.
///
/// Threading: a value. Any thread.
public struct DeviceStatusResult: Sendable, Hashable, JSONObjectEncodable {
    public var name: String
    /// As reported (`resyncing` while a ready accessory resyncs).
    public var state: DeviceState
    public var reason: String
    /// Present while a resync runs.
    public var resync: Resync?
    /// `serial` or `rfcomm`.
    public var transport: String
    /// The device node in use or configured, if one is known (left out when not).
    public var path: String?
    public var identity: Identity
    public var settings: Settings
    public var queueDepth: Int64
    public var locked: Bool
    /// `null` where the driver gives none (a pty, an RFCOMM link) or the accessory is not open.
    public var lines: ModemLineState?
    public var counters: Counters
    /// `null` when there has been none.
    public var lastError: String?
    /// Present when the accessory traces to a file.
    public var trace: Trace?
    /// Its pty views, and those that could not be made.
    public var views: [View]

    public init(
        name: String,
        state: DeviceState,
        reason: String,
        resync: Resync?,
        transport: String,
        path: String?,
        identity: Identity,
        settings: Settings,
        queueDepth: Int64,
        locked: Bool,
        lines: ModemLineState?,
        counters: Counters,
        lastError: String?,
        trace: Trace?,
        views: [View]
    ) {
        self.name = name
        self.state = state
        self.reason = reason
        self.resync = resync
        self.transport = transport
        self.path = path
        self.identity = identity
        self.settings = settings
        self.queueDepth = queueDepth
        self.locked = locked
        self.lines = lines
        self.counters = counters
        self.lastError = lastError
        self.trace = trace
        self.views = views
    }

    public func encodeMembers(into object: inout JSONMembers) {
        object.add("name", name)
        object.add("state", state.rawValue)
        object.add("reason", reason)
        if let resync { object.add("resync", resync) }
        object.add("transport", transport)
        if let path { object.add("path", path) }
        object.add("identity", identity)
        object.add("settings", settings)
        object.add("queue_depth", queueDepth)
        object.add("locked", locked)
        object.add("lines", lines)
        object.add("counters", counters)
        object.add("last_error", lastError)
        if let trace { object.add("trace", trace) }
        object.add("views", views)
    }
}

extension DeviceStatusResult {
    /// The running resync: `{waiting_for, after, since_ms, until_ms?, probe_attempt?}`.
    ///
    /// Threading: a value. Any thread.
    public struct Resync: Sendable, Hashable, JSONObjectEncodable {
        /// What it waits for now ("late answer", "probe answer", "quiet line" …).
        public var waitingFor: String
        /// What it follows ("a transact that timed out", "the reopen" …).
        public var after: String
        public var sinceMs: Int64
        /// When the current phase ends, if it has an end.
        public var untilMs: Int64?
        /// While probing or backing off between probes.
        public var probeAttempt: Int64?

        public init(waitingFor: String, after: String, sinceMs: Int64, untilMs: Int64?, probeAttempt: Int64?) {
            self.waitingFor = waitingFor
            self.after = after
            self.sinceMs = sinceMs
            self.untilMs = untilMs
            self.probeAttempt = probeAttempt
        }

        public func encodeMembers(into object: inout JSONMembers) {
            object.add("waiting_for", waitingFor)
            object.add("after", after)
            object.add("since_ms", sinceMs)
            if let untilMs { object.add("until_ms", untilMs) }
            if let probeAttempt { object.add("probe_attempt", probeAttempt) }
        }
    }

    /// How the accessory is found, as configured: `{path}`, `{simulated}`, `{address, channel}`
    /// or the udev identity's members that are set.
    ///
    /// Threading: a value. Any thread.
    public enum Identity: Sendable, Hashable, JSONObjectEncodable {
        case path(String)
        /// The simulator's personality.
        case simulated(String)
        case rfcomm(address: String, channel: Int64)
        case match(vendorID: String?, productID: String?, serial: String?, byID: String?)

        public func encodeMembers(into object: inout JSONMembers) {
            switch self {
            case .path(let path): object.add("path", path)
            case .simulated(let personality): object.add("simulated", personality)
            case .rfcomm(let address, let channel):
                object.add("address", address)
                object.add("channel", channel)
            case .match(let vendorID, let productID, let serial, let byID):
                if let vendorID { object.add("vendor_id", vendorID) }
                if let productID { object.add("product_id", productID) }
                if let serial { object.add("serial", serial) }
                if let byID { object.add("by_id", byID) }
            }
        }
    }

    /// The line and framing settings in force:
    /// `{baud, data_bits, parity, stop_bits, flow, framing, until?, timeout_ms}`.
    ///
    /// Threading: a value. Any thread.
    public struct Settings: Sendable, Hashable, JSONObjectEncodable {
        public var baud: Int64
        public var dataBits: Int64
        public var parity: String
        public var stopBits: Int64
        public var flow: String
        /// The framer's type name.
        public var framing: String
        /// The response pattern, if one is configured.
        public var until: String?
        /// The response timeout a request gets when it names none.
        public var timeoutMs: Int64

        public init(
            baud: Int64,
            dataBits: Int64,
            parity: String,
            stopBits: Int64,
            flow: String,
            framing: String,
            until: String?,
            timeoutMs: Int64
        ) {
            self.baud = baud
            self.dataBits = dataBits
            self.parity = parity
            self.stopBits = stopBits
            self.flow = flow
            self.framing = framing
            self.until = until
            self.timeoutMs = timeoutMs
        }

        public func encodeMembers(into object: inout JSONMembers) {
            object.add("baud", baud)
            object.add("data_bits", dataBits)
            object.add("parity", parity)
            object.add("stop_bits", stopBits)
            object.add("flow", flow)
            object.add("framing", framing)
            if let until { object.add("until", until) }
            object.add("timeout_ms", timeoutMs)
        }
    }

    /// The accessory's counters since the daemon started, and the latency percentiles over its
    /// latest requests (left out before the first).
    ///
    /// Threading: a value. Any thread.
    public struct Counters: Sendable, Hashable, JSONObjectEncodable {
        public var bytesIn: Int64 = 0
        public var bytesOut: Int64 = 0
        public var framesIn: Int64 = 0
        public var framesOut: Int64 = 0
        public var framesDropped: Int64 = 0
        public var unsolicitedFrames: Int64 = 0
        public var requestsOK: Int64 = 0
        public var requestsFailed: Int64 = 0
        public var requestsCancelled: Int64 = 0
        public var requestsTimedOut: Int64 = 0
        public var opens: Int64 = 0
        public var openAttempts: Int64 = 0
        public var removals: Int64 = 0
        public var resyncs: Int64 = 0
        public var resyncDiscardedFrames: Int64 = 0
        public var probeFailures: Int64 = 0
        /// Over the latest requests; nil before the first.
        public var latency: Latency?

        /// Request latency percentiles, in milliseconds.
        ///
        /// Threading: a value. Any thread.
        public struct Latency: Sendable, Hashable {
            public var p50Ms: Double
            public var p99Ms: Double

            public init(p50Ms: Double, p99Ms: Double) {
                self.p50Ms = p50Ms
                self.p99Ms = p99Ms
            }
        }

        public init() {}

        public func encodeMembers(into object: inout JSONMembers) {
            object.add("bytes_in", bytesIn)
            object.add("bytes_out", bytesOut)
            object.add("frames_in", framesIn)
            object.add("frames_out", framesOut)
            object.add("frames_dropped", framesDropped)
            object.add("unsolicited_frames", unsolicitedFrames)
            object.add("requests_ok", requestsOK)
            object.add("requests_failed", requestsFailed)
            object.add("requests_cancelled", requestsCancelled)
            object.add("requests_timed_out", requestsTimedOut)
            object.add("opens", opens)
            object.add("open_attempts", openAttempts)
            object.add("removals", removals)
            object.add("resyncs", resyncs)
            object.add("resync_discarded_frames", resyncDiscardedFrames)
            object.add("probe_failures", probeFailures)
            if let latency {
                object.add("latency_p50_ms", latency.p50Ms)
                object.add("latency_p99_ms", latency.p99Ms)
            }
        }
    }

    /// The trace file: `{file, format, active, traced_bytes?, dropped_bytes?, last_error?}`; the
    /// counts only while its writer runs.
    ///
    /// Threading: a value. Any thread.
    public struct Trace: Sendable, Hashable, JSONObjectEncodable {
        public var file: String
        public var format: String
        /// The running writer's figures; nil when the file is not being written.
        public var writer: Writer?

        /// Threading: a value. Any thread.
        public struct Writer: Sendable, Hashable {
            public var tracedBytes: Int64
            public var droppedBytes: Int64
            public var lastError: String?

            public init(tracedBytes: Int64, droppedBytes: Int64, lastError: String?) {
                self.tracedBytes = tracedBytes
                self.droppedBytes = droppedBytes
                self.lastError = lastError
            }
        }

        public init(file: String, format: String, writer: Writer?) {
            self.file = file
            self.format = format
            self.writer = writer
        }

        public func encodeMembers(into object: inout JSONMembers) {
            object.add("file", file)
            object.add("format", format)
            object.add("active", writer != nil)
            guard let writer else { return }
            object.add("traced_bytes", writer.tracedBytes)
            object.add("dropped_bytes", writer.droppedBytes)
            if let lastError = writer.lastError { object.add("last_error", lastError) }
        }
    }
}

/// The modem lines, each true when asserted: `{dtr, rts, cts, dsr, dcd, ri}` (in `device.status`
/// and the `device.lines` notification).
///
/// Threading: a value. Any thread.
public struct ModemLineState: Sendable, Hashable, JSONObjectEncodable {
    public var dtr: Bool
    public var rts: Bool
    public var cts: Bool
    public var dsr: Bool
    public var dcd: Bool
    public var ri: Bool

    public init(dtr: Bool, rts: Bool, cts: Bool, dsr: Bool, dcd: Bool, ri: Bool) {
        self.dtr = dtr
        self.rts = rts
        self.cts = cts
        self.dsr = dsr
        self.dcd = dcd
        self.ri = ri
    }

    public func encodeMembers(into object: inout JSONMembers) {
        object.add("dtr", dtr)
        object.add("rts", rts)
        object.add("cts", cts)
        object.add("dsr", dsr)
        object.add("dcd", dcd)
        object.add("ri", ri)
    }
}

/// An accessory's modem lines, `{device, lines}`: the result of `control` and the params of the
/// `device.lines` notification. `lines` is `null` when the accessory has none to show.
///
/// Threading: a value. Any thread.
public struct DeviceLines: Sendable, Hashable, JSONObjectEncodable {
    public var device: String
    public var lines: ModemLineState?

    public init(device: String, lines: ModemLineState?) {
        self.device = device
        self.lines = lines
    }

    public func encodeMembers(into object: inout JSONMembers) {
        object.add("device", device)
        object.add("lines", lines)
    }
}
