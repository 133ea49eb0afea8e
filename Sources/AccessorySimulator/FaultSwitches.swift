/// Misbehaviour a simulated accessory can be told to show.
///
/// Faults apply to *replies*: the answer to one request (one line, or one frame), or for `nmea`
/// one emitted fix. Unsolicited `at-modem` lines are never faulted. Replies are counted from 1,
/// and the count restarts when the accessory reappears. For reply number k, in this order:
/// 1. `hangupAfter` = n and k > n: the accessory hangs up instead of replying (and reappears
///    after `reappearAfter`, if set);
/// 2. `dropEvery` = n and k is a multiple of n: the reply is not sent;
/// 3. `garbageEvery` = n and k a multiple of n, or a draw under `garbageProbability`: the reply's
///    bytes are replaced by random ones, keeping its framing bytes (line ends, SLIP END, COBS
///    0x00) in place, so the client sees one corrupted line or frame of the same length;
/// 4. `lateBy` is set and k is a multiple of `lateEvery`: the reply is held back that long (on top
///    of the response delay). Replies always leave in order, so later replies wait behind it.
///
/// Any thread (a value).
package struct FaultSwitches: Sendable, Equatable {
    /// Extra delay of late replies (make it longer than the client's timeout).
    package var lateBy: Duration?
    /// Which replies are late: every `lateEvery`-th (1 = all of them).
    package var lateEvery: Int
    /// Every n-th reply is garbage.
    package var garbageEvery: Int?
    /// Each reply is garbage with this probability (0...1).
    package var garbageProbability: Double
    /// Every n-th reply is dropped.
    package var dropEvery: Int?
    /// After n replies, the next reply is replaced by a hang-up: the pty master is closed, so the
    /// slave side reads end of file (or `EIO`) and gets `EPOLLHUP`. 0 hangs up at the first one.
    package var hangupAfter: Int?
    /// After a hang-up (by fault or ``SimulatedAccessory/hangUp(reappearAfter:)``), open a new pty
    /// after this delay and republish its path.
    package var reappearAfter: Duration?

    package init(
        lateBy: Duration? = nil,
        lateEvery: Int = 1,
        garbageEvery: Int? = nil,
        garbageProbability: Double = 0,
        dropEvery: Int? = nil,
        hangupAfter: Int? = nil,
        reappearAfter: Duration? = nil
    ) {
        self.lateBy = lateBy
        self.lateEvery = lateEvery
        self.garbageEvery = garbageEvery
        self.garbageProbability = garbageProbability
        self.dropEvery = dropEvery
        self.hangupAfter = hangupAfter
        self.reappearAfter = reappearAfter
    }

    /// What happens to reply number `k` (from 1). `draw` is a uniform number in 0..<1 used for
    /// the garbage probability. Any thread.
    func fate(ofReply k: Int, draw: Double) -> ReplyFate {
        if let n = hangupAfter, k > n { return .hangUp }
        if let n = dropEvery, k % n == 0 { return .drop }
        var fate = ReplyFate.send(garbage: false, late: .zero)
        if let n = garbageEvery, k % n == 0 { fate = .send(garbage: true, late: .zero) }
        if garbageProbability > 0, draw < garbageProbability { fate = .send(garbage: true, late: .zero) }
        if let late = lateBy, k % lateEvery == 0, case .send(let garbage, _) = fate {
            fate = .send(garbage: garbage, late: late)
        }
        return fate
    }

    func validate() throws(SimulatorError) {
        for (name, value) in [("garbageEvery", garbageEvery), ("dropEvery", dropEvery)] {
            if let v = value, v < 1 { throw .invalidConfiguration("\(name) must be at least 1") }
        }
        if lateEvery < 1 { throw .invalidConfiguration("lateEvery must be at least 1") }
        if let h = hangupAfter, h < 0 { throw .invalidConfiguration("hangupAfter must not be negative") }
        if !(0...1).contains(garbageProbability) {
            throw .invalidConfiguration("garbageProbability must be between 0 and 1")
        }
        if let l = lateBy, l < .zero { throw .invalidConfiguration("lateBy must not be negative") }
        if let r = reappearAfter, r < .zero { throw .invalidConfiguration("reappearAfter must not be negative") }
    }
}

/// The outcome for one reply. Any thread (a value).
enum ReplyFate: Equatable {
    case hangUp
    case drop
    case send(garbage: Bool, late: Duration)
}
