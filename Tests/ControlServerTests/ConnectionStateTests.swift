import Testing

@testable import ControlServer

/// The client connection's state machine (`ConnectionState.swift`): the legal moves are exactly
/// the table's, a refused move changes nothing, and what each state lets through.
@Suite("connection state")
struct ConnectionStateTests {
    /// Every legal move, written out again here so that a change to the table is a visible
    /// change to this list.
    private static let legal: Set<String> = [
        "requests → awaiting attach", "awaiting attach → requests", "awaiting attach → raw",
        "requests → draining", "awaiting attach → draining", "raw → draining",
        "requests → flushing", "awaiting attach → flushing", "raw → flushing", "draining → flushing",
        "requests → closing", "awaiting attach → closing", "raw → closing", "draining → closing",
        "requests → closed", "awaiting attach → closed", "raw → closed", "draining → closed",
        "flushing → closed", "closing → closed",
    ]

    @Test("the legal moves are exactly the table's")
    func transitionTable() {
        var found: Set<String> = []
        for from in ConnectionState.allCases {
            for to in ConnectionState.allCases where from.canMove(to: to) { found.insert("\(from) → \(to)") }
        }
        #expect(found == Self.legal)
    }

    @Test("from every state, each illegal move is refused and leaves the state as it was")
    func illegalMovesRefused() {
        for from in ConnectionState.allCases {
            for to in ConnectionState.allCases where !Self.legal.contains("\(from) → \(to)") {
                let word = Self.word(in: from)
                #expect(word.move(to: to) == nil, "\(from) → \(to) was allowed")
                #expect(word.current == from, "\(from) → \(to) changed the state")
            }
        }
    }

    @Test("each legal move happens and reports the state it left")
    func legalMovesHappen() {
        for from in ConnectionState.allCases {
            for to in ConnectionState.allCases where Self.legal.contains("\(from) → \(to)") {
                let word = Self.word(in: from)
                #expect(word.move(to: to) == from)
                #expect(word.current == to)
            }
        }
    }

    @Test("closed is terminal; closing and flushing lead only to closed")
    func terminal() {
        let word = ConnectionStateWord()
        #expect(word.move(to: .closing) == .requests)
        #expect(word.move(to: .closing) == nil, "a second close is no move: the first one counts")
        #expect(word.move(to: .draining) == nil)
        #expect(word.move(to: .closed) == .closing)
        for state in ConnectionState.allCases { #expect(word.move(to: state) == nil) }
        #expect(word.current == .closed)
    }

    @Test("open states read and send; draining still sends; flushing, closing and closed do neither")
    func whatEachStateLetsThrough() {
        let open = ConnectionState.allCases.filter(\.isOpen)
        let sending = ConnectionState.allCases.filter(\.acceptsLines)
        #expect(open == [.requests, .awaitingAttach, .raw])
        #expect(sending == [.requests, .awaitingAttach, .raw, .draining])
    }

    /// A word moved into `state` along legal moves.
    private static func word(in state: ConnectionState) -> ConnectionStateWord {
        let word = ConnectionStateWord()
        let path: [ConnectionState] =
            switch state {
            case .requests: []
            case .awaitingAttach: [.awaitingAttach]
            case .raw: [.awaitingAttach, .raw]
            case .draining: [.draining]
            case .flushing: [.flushing]
            case .closing: [.closing]
            case .closed: [.closed]
            }
        for step in path { word.move(to: step) }
        precondition(word.current == state)
        return word
    }
}
