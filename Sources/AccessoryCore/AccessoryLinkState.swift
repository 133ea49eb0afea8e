import ControlProtocol
import IOLoop
import Transports

/// Where an accessory's connection to its device is: the one place that says whether it is
/// open, what it is open with, and what clients are told about it. The legal moves are
/// ``canMove(to:)``, written once; ``Accessory`` makes every change through one method, which
/// traps on any other move in debug builds (as the loop's lifecycle does).
///
/// ```
///            ┌──────────────── failure ───────────────┐
///            ▼                                        │
///   closed(absent|failed|disabled) ──open()──▶ opening ──opened──▶ settling ──settled──▶ ready
///            ▲                                   (connector)        │ (after a removal)    │
///            └──────────────────── gone, conflict ───────────────────┴──────────────────────┘
///   any ──shutDown()──▶ shutDown
/// ```
///
/// A value. Device loop only (its payloads are device-loop objects).
enum AccessoryLinkState {
    /// Not open. `state` is what clients see (`absent`, `failed` or `disabled`); `removal` is
    /// remembered from an unplug until the device is open again (see ``Removal``).
    case closed(DeviceState, reason: String, removal: Removal?)
    /// Opening: a path being opened, or an RFCOMM connect in flight (`connector`).
    case opening(reason: String, removal: Removal?, connector: (any PendingConnection)?)
    /// Open after a removal, the line settling (and a late answer discarded) before requests run.
    case settling(OpenDevice, reason: String)
    /// Open, serving requests.
    case ready(OpenDevice, reason: String)
    /// Closed for good (daemon shutdown, or replaced or removed by a reload).
    case shutDown(reason: String)

    /// The case, without its payload: what the transition table is written in.
    enum Kind: Equatable, CustomStringConvertible {
        case closed, opening, settling, ready, shutDown

        var description: String {
            switch self {
            case .closed: "closed"
            case .opening: "opening"
            case .settling: "settling"
            case .ready: "ready"
            case .shutDown: "shut down"
            }
        }
    }

    var kind: Kind {
        switch self {
        case .closed: .closed
        case .opening: .opening
        case .settling: .settling
        case .ready: .ready
        case .shutDown: .shutDown
        }
    }

    /// Whether the link may move from this state to `next`. The one place the transitions live.
    /// Closed and opening may be entered again with another reason (a new attempt, a conflict
    /// reported on an absent device); nothing leaves `shutDown`.
    func canMove(to next: Kind) -> Bool {
        switch (kind, next) {
        case (.closed, .closed), (.closed, .opening), (.closed, .shutDown): true
        case (.opening, .opening), (.opening, .closed), (.opening, .settling), (.opening, .ready),
            (.opening, .shutDown):
            true
        case (.settling, .ready), (.settling, .closed), (.settling, .shutDown): true
        case (.ready, .closed), (.ready, .shutDown): true
        default: false
        }
    }

    /// What `device.status` and state notifications report (before a resync is taken into
    /// account: ``Accessory/reportedState``).
    var deviceState: DeviceState {
        switch self {
        case .closed(let state, _, _): state
        case .opening, .settling: .opening
        case .ready: .ready
        case .shutDown: .disabled
        }
    }

    var reason: String {
        switch self {
        case .closed(_, let reason, _), .opening(let reason, _, _), .settling(_, let reason), .ready(_, let reason),
            .shutDown(let reason):
            reason
        }
    }

    /// The open device, while settling or ready.
    var device: OpenDevice? {
        switch self {
        case .settling(let device, _), .ready(let device, _): device
        default: nil
        }
    }

    /// The unplug remembered until the device is open again, while closed or opening.
    var removal: Removal? {
        switch self {
        case .closed(_, _, let removal), .opening(_, let removal, _): removal
        default: nil
        }
    }
}

/// An open device: the byte stream, its framer, and (for a tty) the port its ioctls go to.
///
/// A class, though immutable: every request takes it out of the link state, and a copy of the
/// struct it was retained and released its four references (about 250 instructions a request).
///
/// Device loop only.
final class OpenDevice {
    let channel: any DeviceChannel
    let reader: FrameReader
    /// The tty, for modem lines, break and settings; nil for an RFCOMM link (which has none).
    let port: SerialPort?
    /// The path or RFCOMM address it was opened at, for state reasons.
    let description: String

    init(channel: any DeviceChannel, reader: FrameReader, port: SerialPort?, description: String) {
        self.channel = channel
        self.reader = reader
        self.port = port
        self.description = description
    }
}

/// What an unplug leaves for the next open: the device was reset, so the line settles before
/// requests run; and with `resync.after_reopen: late_answer`, when hot-plug (not the device)
/// closed it during a `transact`, the instant that answer was due, so that a reopen before then
/// discards it first. A value.
struct Removal {
    var lateAnswerDue: LoopInstant?
}
