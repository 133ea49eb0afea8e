import ControlProtocol
import JSONCodec

/// Reads a recording one line at a time (``RecordingFile`` feeds it from a file), checking
/// everything: the input is assumed hostile. Every error names the line.
///
/// Also reads a `jsonl` trace file (docs/trace.md): its lines are `device.traffic` records,
/// recognised by the first line (`direction` and `timestamp_us`, no `format`); their times are
/// made relative to the first record. An `rx` record answers the request it names; in a trace
/// whose `rx` records name none (written before they did), answers are attributed by the
/// daemon's single-file order (``Recording/attributeReplies()``).
///
/// Threading: a value, used by one thread at a time.
package struct RecordingDecoder {
    /// Limits on what one recording may hold.
    ///
    /// Threading: a value. Any thread.
    package struct Limits: Sendable, Equatable {
        /// The longest line, without its newline (a 64 KiB read is about 87 KiB of base64).
        package var maxLineBytes: Int
        /// The most records.
        package var maxEntries: Int
        /// The most bytes kept from the file: the traffic, both directions together, and the
        /// text kept beside it (request ids, twice: in the record and in the reply index;
        /// settings), so that no field a hostile file repeats is kept uncounted.
        package var maxDataBytes: Int

        package init(maxLineBytes: Int = 1 << 20, maxEntries: Int = 4_000_000, maxDataBytes: Int = 256 << 20) {
            self.maxLineBytes = maxLineBytes
            self.maxEntries = maxEntries
            self.maxDataBytes = maxDataBytes
        }
    }

    private enum Layout {
        case recording
        case trace(startMicroseconds: Int64)
    }

    package let limits: Limits
    private var layout: Layout?
    private var recording = Recording(device: "")
    private var lineNumber = 0
    private var dataBytes = 0
    /// File line of each `tx` record → its index in the entries.
    private var txByLine: [Int: Int] = [:]
    /// Trace files: the latest `tx` of each request (client and id) → its index in the entries,
    /// and whether any `rx` record named the request it answers.
    private var txByRequest: [String: Int] = [:]
    private var traceNamesAnswers = false
    /// The header's version.
    private var version: Int64 = Int64(Recording.version)

    package init(limits: Limits = Limits()) { self.limits = limits }

    /// The number of the line last fed.
    package var currentLine: Int { lineNumber }

    /// Takes the next line, without its newline.
    package mutating func feed(line: some Collection<UInt8>) throws(RecordingError) {
        lineNumber += 1
        guard line.count <= limits.maxLineBytes else {
            throw RecordingError(line: lineNumber, "longer than \(limits.maxLineBytes) bytes")
        }
        let value: JSONValue
        do throws(JSONParseError) {
            value = try JSONParser.parse(line, options: JSONParser.Options(maxDepth: 4))
        } catch {
            throw RecordingError(line: lineNumber, "not a JSON object: \(error)")
        }
        guard let object = value.objectValue else {
            throw RecordingError(line: lineNumber, "not a JSON object (found \(value.kindDescription))")
        }
        switch layout {
        case nil: try readFirst(object)
        case .recording: try readEntry(object)
        case .trace(let start): try readTraceRecord(value, start: start)
        }
        guard recording.entries.count <= limits.maxEntries else {
            throw RecordingError(line: lineNumber, "more than \(limits.maxEntries) records")
        }
    }

    /// The recording read. Throws if nothing was fed.
    package mutating func finish() throws(RecordingError) -> Recording {
        guard let layout else { throw RecordingError(line: 0, "the file is empty") }
        if case .trace = layout, !traceNamesAnswers { recording.attributeReplies() }
        return recording
    }

    private mutating func readFirst(_ object: JSONObject) throws(RecordingError) {
        if object["format"] == nil, object["direction"] != nil, let start = object["timestamp_us"]?.int64Value {
            layout = .trace(startMicroseconds: start)
            recording.startedMicroseconds = start
            try readTraceRecord(.object(object), start: start)
            return
        }
        try checkKeys(object, allowed: ["format", "version", "device", "started_us", "settings"])
        guard object["format"]?.stringValue == Recording.formatName else {
            throw RecordingError(
                line: lineNumber,
                "not an accessoryd recording: the first line needs \"format\":\"\(Recording.formatName)\""
            )
        }
        guard let version = object["version"]?.int64Value else {
            throw RecordingError(line: lineNumber, "\"version\" must be an integer")
        }
        guard Recording.readableVersions.contains(version) else {
            let versions = Recording.readableVersions
            throw RecordingError(
                line: lineNumber,
                "version \(version) is not supported (this program reads versions \(versions.lowerBound) to \(versions.upperBound))"
            )
        }
        self.version = version
        guard let device = object["device"]?.stringValue else {
            throw RecordingError(line: lineNumber, "\"device\" must be a string")
        }
        recording.device = device
        if let started = object["started_us"] {
            guard let value = started.int64Value else {
                throw RecordingError(line: lineNumber, "\"started_us\" must be an integer")
            }
            recording.startedMicroseconds = value
        }
        if let settings = object["settings"] {
            guard let members = settings.objectValue else {
                throw RecordingError(line: lineNumber, "\"settings\" must be an object of strings")
            }
            for member in members {
                guard let text = member.value.stringValue else {
                    throw RecordingError(line: lineNumber, "\"settings\".\"\(member.key)\" must be a string")
                }
                try countData(member.key.utf8.count + text.utf8.count)
                recording.settings[member.key] = text
            }
        }
        layout = .recording
    }

    private mutating func readEntry(_ object: JSONObject) throws(RecordingError) {
        let time = try timeField(object)
        let kind: RecordingEntry.Kind
        var bytes: [UInt8] = []
        if let direction = object["dir"] {
            switch direction.stringValue {
            case "tx":
                try checkKeys(object, allowed: ["t_us", "dir", "client", "request", "data_base64"])
                kind = .tx(client: try clientField(object), request: try requestField(object))
            case "rx":
                try checkKeys(object, allowed: ["t_us", "dir", "reply_to", "data_base64"])
                kind = .rx(replyTo: try replyToField(object))
            default:
                throw RecordingError(line: lineNumber, "\"dir\" must be \"tx\" or \"rx\"")
            }
            bytes = try dataField(object)
        } else if let event = object["event"] {
            try checkKeys(object, allowed: ["t_us", "event"])
            guard let name = event.stringValue, RecordingEntry.events.contains(name) else {
                throw RecordingError(
                    line: lineNumber,
                    "\"event\" must be one of \(RecordingEntry.events.sorted().joined(separator: ", "))"
                )
            }
            kind = .event(name)
        } else if let dropped = object["dropped_bytes"] {
            try checkKeys(object, allowed: ["t_us", "dropped_bytes"])
            guard let count = dropped.int64Value, count >= 0 else {
                throw RecordingError(line: lineNumber, "\"dropped_bytes\" must be a count")
            }
            kind = .dropped(count)
        } else if let control = object["control"] {
            guard version >= 2 else {
                throw RecordingError(
                    line: lineNumber,
                    "a \"control\" record needs version 2 (the header says \(version))"
                )
            }
            try checkKeys(object, allowed: ["t_us", "control", "client"])
            let change: LineControl
            do throws(MessageDecodingError) {
                change = try LineControl(json: control)
            } catch {
                throw RecordingError(line: lineNumber, error.description)
            }
            kind = .control(change, client: try clientField(object))
        } else {
            throw RecordingError(
                line: lineNumber,
                "a record needs \"dir\", \"event\", \"control\" or \"dropped_bytes\""
            )
        }
        append(RecordingEntry(line: lineNumber, timeMicroseconds: time, kind: kind, bytes: bytes))
    }

    private mutating func readTraceRecord(_ value: JSONValue, start: Int64) throws(RecordingError) {
        guard let object = value.objectValue, let stamp = object["timestamp_us"]?.int64Value else {
            throw RecordingError(line: lineNumber, "a trace record needs an integer \"timestamp_us\"")
        }
        let (time, overflow) = stamp.subtractingReportingOverflow(start)
        guard !overflow, time >= 0 else {
            throw RecordingError(line: lineNumber, "\"timestamp_us\" is before the first record's")
        }
        try checkOrder(time)
        if let dropped = object["dropped_bytes"] {
            guard let count = dropped.int64Value, count >= 0 else {
                throw RecordingError(line: lineNumber, "\"dropped_bytes\" must be a count")
            }
            append(RecordingEntry(line: lineNumber, timeMicroseconds: time, kind: .dropped(count)))
            return
        }
        let record: TrafficRecord
        do throws(MessageDecodingError) {
            record = try TrafficRecord(json: value)
        } catch {
            throw RecordingError(line: lineNumber, "not a traffic record: \(error)")
        }
        if recording.device.isEmpty { recording.device = record.device }
        var requestText: String?
        if let request = record.request {
            var buffer: [UInt8] = []
            request.encodeJSON(into: &buffer)
            try countData(2 * buffer.count)
            requestText = String(decoding: buffer, as: UTF8.self)
        }
        let key = "\(record.client ?? 0) \(requestText ?? "")"
        let kind: RecordingEntry.Kind
        switch record.direction {
        case .tx:
            kind = .tx(client: record.client, request: requestText)
            if requestText != nil { txByRequest[key] = recording.entries.count }
        case .rx:
            // The daemon names the request that took the frames the bytes end.
            if requestText != nil { traceNamesAnswers = true }
            kind = .rx(replyTo: requestText == nil ? nil : txByRequest[key])
        case .control:
            guard let control = record.control else {
                throw RecordingError(line: lineNumber, "not a traffic record: a control record without its change")
            }
            append(
                RecordingEntry(line: lineNumber, timeMicroseconds: time, kind: .control(control, client: record.client))
            )
            return
        }
        try countData(record.bytes.count)
        append(RecordingEntry(line: lineNumber, timeMicroseconds: time, kind: kind, bytes: record.bytes))
    }

    private mutating func append(_ entry: RecordingEntry) {
        if entry.isTx { txByLine[entry.line] = recording.entries.count }
        recording.entries.append(entry)
    }

    private func checkKeys(_ object: JSONObject, allowed: Set<String>) throws(RecordingError) {
        for key in object.keys where !allowed.contains(key) {
            throw RecordingError(
                line: lineNumber,
                "unknown key \"\(String(key.prefix(40)))\" (this record may have \(allowed.sorted().joined(separator: ", ")))"
            )
        }
    }

    private mutating func timeField(_ object: JSONObject) throws(RecordingError) -> Int64 {
        guard let time = object["t_us"]?.int64Value, time >= 0 else {
            throw RecordingError(line: lineNumber, "\"t_us\" must be a non-negative integer (microseconds)")
        }
        try checkOrder(time)
        return time
    }

    private func checkOrder(_ time: Int64) throws(RecordingError) {
        if let last = recording.entries.last, time < last.timeMicroseconds {
            throw RecordingError(
                line: lineNumber,
                "time \(time) µs is earlier than the previous record's (\(last.timeMicroseconds) µs)"
            )
        }
    }

    private func clientField(_ object: JSONObject) throws(RecordingError) -> UInt64? {
        guard let value = object["client"] else { return nil }
        guard let id = value.int64Value, id >= 0 else {
            throw RecordingError(line: lineNumber, "\"client\" must be a client id")
        }
        return UInt64(id)
    }

    private mutating func requestField(_ object: JSONObject) throws(RecordingError) -> String? {
        guard let value = object["request"] else { return nil }
        switch value {
        case .string, .number(.integer):
            var out: [UInt8] = []
            JSONOutput.appendValue(value, to: &out)
            try countData(2 * out.count)
            return String(decoding: out, as: UTF8.self)
        default:
            throw RecordingError(line: lineNumber, "\"request\" must be a request id (a string or an integer)")
        }
    }

    private func replyToField(_ object: JSONObject) throws(RecordingError) -> Int? {
        guard let value = object["reply_to"] else { return nil }
        guard let line = value.int64Value, let index = txByLine[Int(clamping: line)] else {
            throw RecordingError(line: lineNumber, "\"reply_to\" must be the line of an earlier tx record")
        }
        return index
    }

    private mutating func dataField(_ object: JSONObject) throws(RecordingError) -> [UInt8] {
        guard let text = object["data_base64"]?.stringValue else {
            throw RecordingError(line: lineNumber, "\"data_base64\" must be a string")
        }
        let bytes: [UInt8]
        do throws(Base64Error) {
            bytes = try Base64.decode(text)
        } catch {
            throw RecordingError(line: lineNumber, "\"data_base64\" is not base64: \(error)")
        }
        try countData(bytes.count)
        return bytes
    }

    private mutating func countData(_ count: Int) throws(RecordingError) {
        dataBytes += count
        guard dataBytes <= limits.maxDataBytes else {
            throw RecordingError(line: lineNumber, "more than \(limits.maxDataBytes) bytes of traffic and request ids")
        }
    }
}
