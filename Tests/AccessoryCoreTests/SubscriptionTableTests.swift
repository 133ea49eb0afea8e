import ControlProtocol
import Testing

@testable import AccessoryCore

/// The counts of `lines` and `traffic` subscriptions that let a (un)subscribe skip scanning
/// every subscription: they follow every way an entry changes.
///
/// Threading: each test on its own thread, on its own table.
@Suite struct SubscriptionTableTests {
    private func subscription(_ client: UInt64, _ events: Set<EventKind>) -> AccessoryRegistry.Subscription {
        AccessoryRegistry.Subscription(origin: RecordingOrigin(clientID: client), devices: nil, events: events)
    }

    @Test("added, widened, narrowed, replaced and removed entries are counted")
    func countsFollowEveryChange() {
        var table = SubscriptionTable()
        table[1] = subscription(1, [.data, .lines])
        table[2] = subscription(2, [.traffic, .lines])
        table[3] = subscription(3, [.data])
        #expect((table.wantingLines, table.wantingTraffic) == (2, 1))
        // Changed in place, as `subscribe` and `unsubscribe` do.
        table[3]?.events.insert(.traffic)
        table[1]?.events.remove(.lines)
        #expect((table.wantingLines, table.wantingTraffic) == (1, 2))
        table[2] = subscription(2, [.state])
        #expect((table.wantingLines, table.wantingTraffic) == (0, 1))
        table[3] = nil
        table[9] = nil  // not there: nothing changes
        #expect((table.wantingLines, table.wantingTraffic) == (0, 0))
        #expect(table.values.count == 2)
    }
}
