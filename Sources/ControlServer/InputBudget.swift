import IOLoop

/// How many request bytes the control server may still read in the current turn of its loop.
///
/// Why: when the server shares the device loop (`threads: {control: shared}`), every byte it
/// reads is parsed on the thread that serves the accessories. A budget per turn keeps a flood of
/// clients, each sending long lines, from holding that thread for more than one budget's worth
/// of parsing before the accessories' events are handled. A client skipped for lack of budget is
/// still readable, so the level-triggered wait reports it again at once, next turn.
///
/// Threading: a value owned by the server. Control loop only.
struct InputBudget {
    let perTurn: Int
    private var remaining: Int
    private var turn: UInt64 = .max

    init(perTurn: Int) {
        self.perTurn = perTurn
        self.remaining = perTurn
    }

    /// The bytes that may be read now (0 when this turn's budget is spent); a new turn, as the
    /// loop counts its waits, starts with the whole budget.
    mutating func allowance(in loop: IOLoop) -> Int {
        if loop.waitCount != turn {
            turn = loop.waitCount
            remaining = perTurn
        }
        return remaining
    }

    /// `count` bytes were read in this turn.
    mutating func spend(_ count: Int) {
        remaining = max(0, remaining - count)
    }
}
