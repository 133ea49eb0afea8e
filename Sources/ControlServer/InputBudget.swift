import IOLoop

/// How many request bytes the control server may still read in the current turn of its loop, and
/// how they are shared between the clients.
///
/// Why: when the server shares the device loop (`threads: {control: shared}`), every byte it
/// reads is parsed on the thread that serves the accessories. A budget per turn keeps a flood of
/// clients, each sending long lines, from holding that thread for more than one budget's worth
/// of parsing before the accessories' events are handled. A client skipped for lack of budget is
/// still readable, so the level-triggered wait reports it again at once, next turn.
///
/// Fairness: the wait reports readable clients in the same order every turn, so a budget spent
/// greedily in that order would serve the first flooding client until its socket ran dry while
/// a client with one small request waited. Each client may read only its share of a turn: the
/// budget divided among the clients that wanted to read in the previous turn (at least
/// ``smallestShare``), so all of them fit and each is served every turn. The budget still bounds
/// the first turn of a sudden crowd, whose size the previous turn did not know.
///
/// Threading: a value owned by the server. Control loop only.
struct InputBudget {
    /// What one client has read in one turn. Owned by its connection; control loop only.
    struct Share {
        fileprivate var turn: UInt64 = .max
        fileprivate var read = 0
    }

    /// The least a client may read per turn, however many compete: one short request.
    static let smallestShare = 64

    let perTurn: Int
    private var remaining: Int
    private var turn: UInt64 = .max
    private var readersThisTurn = 0
    private var readersLastTurn = 1

    init(perTurn: Int) {
        self.perTurn = perTurn
        self.remaining = perTurn
    }

    /// The bytes the client with `share` may read now (0: wait for the next turn). A new turn, as
    /// the loop counts its waits, starts with the whole budget.
    mutating func allowance(in loop: IOLoop, for share: inout Share) -> Int {
        if loop.waitCount != turn {
            turn = loop.waitCount
            remaining = perTurn
            readersLastTurn = max(1, readersThisTurn)
            readersThisTurn = 0
        }
        if share.turn != turn {
            share.turn = turn
            share.read = 0
            readersThisTurn += 1
        }
        let quota = max(Self.smallestShare, perTurn / readersLastTurn)
        return min(remaining, max(0, quota - share.read))
    }

    /// The client with `share` read `count` bytes in this turn.
    mutating func spend(_ count: Int, by share: inout Share) {
        remaining = max(0, remaining - count)
        share.read += count
    }
}
