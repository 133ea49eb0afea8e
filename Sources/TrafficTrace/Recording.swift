import ControlProtocol

/// A recorded session with one accessory: what `accessoryctl record` writes and
/// `accessory-sim --replay` plays back. The file format (JSON Lines, versioned) is described in
/// docs/replay.md; ``RecordingDecoder`` reads it, ``Recording/headerLine()`` and
/// ``RecordingEntry/line(replyToLine:)`` write it.
///
/// Threading: a value. Any thread.
package struct Recording: Sendable, Equatable {
    /// The value of the header's `format` key.
    package static let formatName = "accessoryd-recording"
    /// The version this code writes.
    package static let version = 2
    /// The versions it reads: 1 has no `control` records.
    package static let readableVersions: ClosedRange<Int64> = 1...2

    /// The accessory's name in the daemon.
    package var device: String
    /// Wall-clock time (µs since the Unix epoch) of `t_us` 0, if known. Informational.
    package var startedMicroseconds: Int64?
    /// What the recorder knew of the accessory's settings (`serial`, `framing`, …), as the
    /// daemon's `device.status` reported them. Informational: replay does not need it.
    package var settings: [String: String]
    /// Every record, in file order.
    package var entries: [RecordingEntry]

    package init(
        device: String,
        startedMicroseconds: Int64? = nil,
        settings: [String: String] = [:],
        entries: [RecordingEntry] = []
    ) {
        self.device = device
        self.startedMicroseconds = startedMicroseconds
        self.settings = settings
        self.entries = entries
    }
}

/// One record of a ``Recording``: bytes to or from the device, or an event, at a time relative
/// to the recording's start.
///
/// Threading: a value. Any thread.
package struct RecordingEntry: Sendable, Equatable {
    /// What the record is.
    ///
    /// Threading: a value. Any thread.
    package enum Kind: Sendable, Equatable {
        /// Bytes written to the device: a request's frame. `client` and `request` (the request
        /// id's JSON text) say whose, when the daemon said so.
        case tx(client: UInt64?, request: String?)
        /// Bytes read from the device. `replyTo` is the index (in ``Recording/entries``) of the
        /// `tx` they answer; nil for unsolicited bytes.
        case rx(replyTo: Int?)
        /// Something happened to the device: `open`, `close`, `unplug` (``RecordingEntry/events``).
        case event(String)
        /// The daemon had no room for this many bytes of traffic here.
        case dropped(Int64)
        /// A `control` request of `client`'s set a modem line or sent a break (version 2).
        case control(LineControl, client: UInt64?)
    }

    /// The events a recording may hold.
    package static let events: Set<String> = ["open", "close", "unplug"]

    /// The line of the file it was read from (1 is the header); 0 for a record not read from a file.
    package var line: Int
    /// Microseconds since the recording's start.
    package var timeMicroseconds: Int64
    package var kind: Kind
    package var bytes: [UInt8]

    package init(line: Int = 0, timeMicroseconds: Int64, kind: Kind, bytes: [UInt8] = []) {
        self.line = line
        self.timeMicroseconds = timeMicroseconds
        self.kind = kind
        self.bytes = bytes
    }

    package var isTx: Bool {
        if case .tx = kind { return true }
        return false
    }
}

extension Recording {
    /// Sets every `rx` record's `replyTo` by the daemon's single-file order: bytes read after a
    /// request's frame was written, and before the next one, belong to that request (the daemon
    /// hands them to no other); bytes read before any request, or after a `close` or `unplug`,
    /// are unsolicited. For traces whose `rx` records do not name the request they answer.
    package mutating func attributeReplies() {
        var current: Int?
        for index in entries.indices {
            switch entries[index].kind {
            case .tx: current = index
            case .rx: entries[index].kind = .rx(replyTo: current)
            case .event(let name): if name != "open" { current = nil }
            case .dropped, .control: break
            }
        }
    }
}
