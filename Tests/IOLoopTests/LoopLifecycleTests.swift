import AccessoryTestSupport
import Testing

@testable import IOLoop

@Suite("loop lifecycle")
struct LoopLifecycleTests {
    private static let all: [LoopLifecycleState] = [.open, .shuttingDown, .closing, .closed]

    @Test("the legal moves are exactly open → shutting down → closing → closed")
    func transitionTable() {
        var legal: [String] = []
        for from in Self.all {
            for to in Self.all where from.canMove(to: to) { legal.append("\(from) → \(to)") }
        }
        #expect(legal == ["open → shutting down", "shutting down → closing", "closing → closed"])
    }

    @Test("a move from a state the lifecycle has already left is refused and changes nothing")
    func lostRace() {
        let lifecycle = LoopLifecycle()
        #expect(lifecycle.move(from: .open, to: .shuttingDown))
        #expect(!lifecycle.move(from: .open, to: .shuttingDown), "a second shutdown finds it moved")
        #expect(lifecycle.state == .shuttingDown)
        #expect(!lifecycle.state.refusesPerform)
        #expect(lifecycle.move(from: .shuttingDown, to: .closing))
        #expect(lifecycle.state.refusesPerform)
    }

    @Test("an illegal move (open → closed, skipping the shutdown) traps in debug builds")
    func illegalMoveTraps() async {
        await #expect(processExitsWith: .failure) {
            _ = LoopLifecycle().move(from: .open, to: .closed)
        }
    }

    @Test("a loop on the current thread goes open → closed at shutdown; a second shutdown does nothing")
    func currentThreadLoop() throws {
        let loop = try IOLoop.forCurrentThread()
        #expect(loop.lifecycle.state == .open)
        #expect(!loop.isShutDown)
        loop.shutdown()
        #expect(loop.lifecycle.state == .closed)
        #expect(loop.isShutDown)
        #expect(loop.shutdown() == 0)
        #expect(loop.perform {} == false)
    }

    @Test("a spawned loop is closed once shutdown() returns, and a second shutdown() returns too")
    func spawnedLoop() throws {
        let loop = try IOLoop.spawn(name: "lifecycle")
        #expect(Wait.onLoop(loop) { loop.lifecycle.state } == .open)
        loop.shutdown()
        #expect(loop.lifecycle.state == .closed)
        loop.shutdown()
        #expect(loop.lifecycle.state == .closed)
    }
}
