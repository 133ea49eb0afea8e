import SystemCalls

/// What the driver told of the line at one reading; nil where it cannot tell (a pty: every
/// field but `outputQueued`). A value. Device loop only.
struct SerialLineStatus: Sendable, Equatable {
    /// Bytes the kernel has not yet handed to the transmitter (`TIOCOUTQ`).
    var outputQueued: Int?
    /// The transmitter's shift register is empty too (`TIOCSERGETLSR`).
    var transmitterEmpty: Bool?
    /// The driver's receive counters (`TIOCGICOUNT`).
    var counts: Termios.InterruptCounts?
}

/// NOTIFY-LINESTATE's byte (RFC 2217) from what Linux tells of the line. The error bits and
/// data-ready are events: set when the driver's counter moved since the previous reading. Where
/// the driver cannot tell (a pty), the registers read empty and no error is ever set; the
/// time-out bit is never set (Linux reports no such condition). Pure. Threading: a value. Any
/// thread.
enum ComPortLineState {
    static let timeoutError: UInt8 = 0x80
    static let shiftRegisterEmpty: UInt8 = 0x40
    static let holdingRegisterEmpty: UInt8 = 0x20
    static let breakDetect: UInt8 = 0x10
    static let framingError: UInt8 = 0x08
    static let parityError: UInt8 = 0x04
    static let overrunError: UInt8 = 0x02
    static let dataReady: UInt8 = 0x01

    /// The byte for `status`, its events counted from `previous` (none without both readings).
    static func byte(_ status: SerialLineStatus, previous: Termios.InterruptCounts?) -> UInt8 {
        var bits: UInt8 = 0
        let holdingEmpty = (status.outputQueued ?? 0) == 0
        if holdingEmpty { bits |= holdingRegisterEmpty }
        if status.transmitterEmpty ?? holdingEmpty { bits |= shiftRegisterEmpty }
        guard let now = status.counts, let before = previous else { return bits }
        if now.received != before.received { bits |= dataReady }
        if now.overruns != before.overruns { bits |= overrunError }
        if now.parityErrors != before.parityErrors { bits |= parityError }
        if now.framingErrors != before.framingErrors { bits |= framingError }
        if now.breaks != before.breaks { bits |= breakDetect }
        return bits
    }
}
