import ControlProtocol
import JSONCodec

/// Writing a recording: the header line, then one line per entry (docs/replay.md). Every line
/// ends with `\n`; bytes are base64, so the file is binary-safe and plain ASCII.
extension Recording {
    /// The first line: `{"format":"accessoryd-recording","version":1,"device":…,"started_us":…,"settings":{…}}`.
    package func headerLine() -> [UInt8] {
        var object = JSONObject()
        object.append("format", .string(Self.formatName))
        object.append("version", .int(Self.version))
        object.append("device", .string(device))
        if let startedMicroseconds { object.append("started_us", .integer(startedMicroseconds)) }
        var settingsObject = JSONObject()
        for key in settings.keys.sorted() { settingsObject.append(key, .string(settings[key] ?? "")) }
        object.append("settings", .object(settingsObject))
        return Self.line(object)
    }

    /// The whole file: the header, then the entries, `reply_to` naming the line of the answered
    /// request (the header is line 1, entry `i` is line `i + 2`).
    package func encoded() -> [UInt8] {
        var out = headerLine()
        for entry in entries {
            var replyToLine: Int?
            if case .rx(let replyTo?) = entry.kind { replyToLine = replyTo + 2 }
            out += entry.line(replyToLine: replyToLine)
        }
        return out
    }

    static func line(_ object: JSONObject) -> [UInt8] {
        var out: [UInt8] = []
        JSONOutput.appendValue(.object(object), to: &out)
        out.append(UInt8(ascii: "\n"))
        return out
    }
}

extension RecordingEntry {
    /// The entry's line. `replyToLine`: for an `rx` answer, the file line of the request it answers.
    ///
    /// `{"t_us":…,"dir":"tx","client":3,"request":7,"data_base64":"…"}`,
    /// `{"t_us":…,"dir":"rx","reply_to":12,"data_base64":"…"}` (no `reply_to`: unsolicited),
    /// `{"t_us":…,"event":"unplug"}`, `{"t_us":…,"dropped_bytes":4096}`,
    /// `{"t_us":…,"control":{"dtr":false},"client":3}`.
    package func line(replyToLine: Int?) -> [UInt8] {
        var object = JSONObject()
        object.append("t_us", .integer(timeMicroseconds))
        switch kind {
        case .tx(let client, let request):
            object.append("dir", .string("tx"))
            if let client { object.append("client", .integer(Int64(clamping: client))) }
            if let request, let value = try? JSONParser.parse(Array(request.utf8)) { object.append("request", value) }
            appendData(to: &object)
        case .rx:
            object.append("dir", .string("rx"))
            if let replyToLine { object.append("reply_to", .int(replyToLine)) }
            appendData(to: &object)
        case .event(let name):
            object.append("event", .string(name))
        case .dropped(let count):
            object.append("dropped_bytes", .integer(count))
        case .control(let control, let client):
            var text: [UInt8] = []
            control.appendJSON(to: &text)
            if let value = try? JSONParser.parse(text) { object.append("control", value) }
            if let client { object.append("client", .integer(Int64(clamping: client))) }
        }
        return Recording.line(object)
    }

    private func appendData(to object: inout JSONObject) {
        var encoded: [UInt8] = []
        Base64.encode(bytes, into: &encoded)
        object.append("data_base64", .string(String(decoding: encoded, as: UTF8.self)))
    }
}
