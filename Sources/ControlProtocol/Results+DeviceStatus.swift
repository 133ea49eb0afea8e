import JSONCodec

/// The result of `device.status`: one accessory's state, identity, settings, modem lines,
/// counters, trace file and views,
/// `{name, state, reason, resync?, transport, path?, identity, settings, queue_depth, locked,
/// lines, counters, last_error, trace?, views, listeners?}`.
///
/// Threading: a value. Any thread.
package struct DeviceStatusResult: Sendable, Hashable, JSONObjectEncodable {
    package var name: String
    /// As reported (`resyncing` while a ready accessory resyncs).
    package var state: DeviceState
    package var reason: String
    /// Present while a resync runs.
    package var resync: Resync?
    /// `serial` or `rfcomm`.
    package var transport: String
    /// The device node in use or configured, if one is known (left out when not).
    package var path: String?
    package var identity: Identity
    package var settings: Settings
    package var queueDepth: Int64
    package var locked: Bool
    /// `null` where the driver gives none (a pty, an RFCOMM link) or the accessory is not open.
    package var lines: ModemLineState?
    package var counters: Counters
    /// `null` when there has been none.
    package var lastError: String?
    /// Present when the accessory traces to a file.
    package var trace: Trace?
    /// Its pty views, and those that could not be made.
    package var views: [View]
    /// Its network listeners and their connections (left out when it has none).
    package var listeners: [ListenerStatus] = []

    package init(
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

    package func encodeMembers(into object: inout JSONMembers) {
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
        if !listeners.isEmpty { object.add("listeners", listeners) }
    }
}

extension DeviceStatusResult {
    /// The running resync: `{waiting_for, after, since_ms, until_ms?, probe_attempt?}`.
    ///
    /// Threading: a value. Any thread.
    package struct Resync: Sendable, Hashable, JSONObjectEncodable {
        /// What it waits for now ("late answer", "probe answer", "quiet line" …).
        package var waitingFor: String
        /// What it follows ("a transact that timed out", "the reopen" …).
        package var after: String
        package var sinceMs: Int64
        /// When the current phase ends, if it has an end.
        package var untilMs: Int64?
        /// While probing or backing off between probes.
        package var probeAttempt: Int64?

        package init(waitingFor: String, after: String, sinceMs: Int64, untilMs: Int64?, probeAttempt: Int64?) {
            self.waitingFor = waitingFor
            self.after = after
            self.sinceMs = sinceMs
            self.untilMs = untilMs
            self.probeAttempt = probeAttempt
        }

        package func encodeMembers(into object: inout JSONMembers) {
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
    package enum Identity: Sendable, Hashable, JSONObjectEncodable {
        case path(String)
        /// The simulator's personality.
        case simulated(String)
        case rfcomm(address: String, channel: Int64)
        case match(vendorID: String?, productID: String?, serial: String?, byID: String?)

        package func encodeMembers(into object: inout JSONMembers) {
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
    package struct Settings: Sendable, Hashable, JSONObjectEncodable {
        package var baud: Int64
        package var dataBits: Int64
        package var parity: String
        package var stopBits: Int64
        package var flow: String
        /// The framer's type name.
        package var framing: String
        /// The response pattern, if one is configured.
        package var until: String?
        /// The response timeout a request gets when it names none.
        package var timeoutMs: Int64

        package init(
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

        package func encodeMembers(into object: inout JSONMembers) {
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
    /// latest requests (left out before the first). AccessoryCore counts into this value itself.
    ///
    /// Threading: a value. Any thread.
    package struct Counters: Sendable, Hashable, JSONObjectEncodable {
        package var bytesIn: UInt64 = 0
        package var bytesOut: UInt64 = 0
        package var framesIn: UInt64 = 0
        package var framesOut: UInt64 = 0
        package var framesDropped: UInt64 = 0
        package var unsolicitedFrames: UInt64 = 0
        package var requestsOK: UInt64 = 0
        package var requestsFailed: UInt64 = 0
        package var requestsCancelled: UInt64 = 0
        package var requestsTimedOut: UInt64 = 0
        package var opens: UInt64 = 0
        /// Every attempt to open or connect, successful or not (the back-off shows in its rate).
        package var openAttempts: UInt64 = 0
        package var removals: UInt64 = 0
        /// Resyncs started after a request ended without its answer (not the settle after a reopen).
        package var resyncs: UInt64 = 0
        /// Frames a resync discarded: late answers, probe answers, noise.
        package var resyncDiscardedFrames: UInt64 = 0
        /// Probe attempts that got no matching answer in time (or could not be sent).
        package var probeFailures: UInt64 = 0
        /// Over the latest requests; nil before the first.
        package var latency: Latency?

        /// Request latency percentiles, in milliseconds.
        ///
        /// Threading: a value. Any thread.
        package struct Latency: Sendable, Hashable {
            package var p50Ms: Double
            package var p99Ms: Double

            package init(p50Ms: Double, p99Ms: Double) {
                self.p50Ms = p50Ms
                self.p99Ms = p99Ms
            }
        }

        package init() {}

        package func encodeMembers(into object: inout JSONMembers) {
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
    package struct Trace: Sendable, Hashable, JSONObjectEncodable {
        package var file: String
        package var format: String
        /// The running writer's figures; nil when the file is not being written.
        package var writer: Writer?

        /// Threading: a value. Any thread.
        package struct Writer: Sendable, Hashable {
            package var tracedBytes: Int64
            package var droppedBytes: Int64
            package var lastError: String?

            package init(tracedBytes: Int64, droppedBytes: Int64, lastError: String?) {
                self.tracedBytes = tracedBytes
                self.droppedBytes = droppedBytes
                self.lastError = lastError
            }
        }

        package init(file: String, format: String, writer: Writer?) {
            self.file = file
            self.format = format
            self.writer = writer
        }

        package func encodeMembers(into object: inout JSONMembers) {
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
package struct ModemLineState: Sendable, Hashable, JSONObjectEncodable {
    package var dtr: Bool
    package var rts: Bool
    package var cts: Bool
    package var dsr: Bool
    package var dcd: Bool
    package var ri: Bool

    package init(dtr: Bool, rts: Bool, cts: Bool, dsr: Bool, dcd: Bool, ri: Bool) {
        self.dtr = dtr
        self.rts = rts
        self.cts = cts
        self.dsr = dsr
        self.dcd = dcd
        self.ri = ri
    }

    package func encodeMembers(into object: inout JSONMembers) {
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
package struct DeviceLines: Sendable, Hashable, JSONObjectEncodable {
    package var device: String
    package var lines: ModemLineState?

    package init(device: String, lines: ModemLineState?) {
        self.device = device
        self.lines = lines
    }

    package func encodeMembers(into object: inout JSONMembers) {
        object.add("device", device)
        object.add("lines", lines)
    }
}
