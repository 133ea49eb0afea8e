import ControlProtocol
import Testing

@testable import AccessoryCore

/// The in-flight table: ids in use refused per client, counts per client and in all, the last
/// client's entry cached (so each case is tried with the cache on another client too), and a
/// client's leaving handing back its requests. Test thread only (the operations are never run).
@Suite("In-flight requests by client and id")
struct InflightRequestsTests {
    let virtual: VirtualAccessory

    init() throws { virtual = try VirtualAccessory() }

    func op(_ id: RequestID) -> RequestOperation {
        RequestOperation(
            accessory: virtual.accessory,
            kind: .read(maxFrames: 1),
            timeoutMs: 100,
            requestID: id,
            origin: virtual.client
        )
    }

    /// Inserts each of `ops` for `client`; what `insert` answered for each.
    func add(_ table: inout InflightRequests, _ ops: [RequestOperation], client: UInt64) -> [Bool] {
        ops.map { table.insert($0, client: client) }
    }

    @Test("an id in use is refused, as the first request or among the others; another client may use it")
    func idsInUse() {
        var table = InflightRequests()
        let (a, b, c) = (op(.int(1)), op(.string("two")), op(.int(3)))
        let first = add(&table, [a, b, c, op(.int(1)), op(.string("two"))], client: 7)
        #expect(first == [true, true, true, false, false], "the first's id, then an id among the others")
        let other = add(&table, [op(.int(1))], client: 8)
        #expect(other == [true], "another client's ids are its own")
        let cachedElsewhere = add(&table, [op(.int(3))], client: 7)
        #expect(cachedElsewhere == [false], "with the cache on client 8")
        #expect(table.count == 4)
        #expect(table.count(of: 7) == 3)
        #expect(table.count(of: 8) == 1)
        #expect(table.count(of: 9) == 0)
        #expect(table.find(client: 7, id: .string("two")) === b)
        #expect(table.find(client: 7, id: .int(1)) === a)
        #expect(table.find(client: 9, id: .int(1)) == nil)
    }

    @Test("removing the first lets a new request take its place; removing what is not there changes nothing")
    func removal() {
        var table = InflightRequests()
        let (a, b) = (op(.int(1)), op(.int(2)))
        let both = add(&table, [a, b], client: 1)
        #expect(both == [true, true])
        table.remove(a, client: 1)
        #expect(table.count(of: 1) == 1)
        #expect(table.find(client: 1, id: .int(1)) == nil)
        let again = add(&table, [op(.int(1)), op(.int(2))], client: 1)
        #expect(again == [true, false], "the first's id is free again; b still holds its id")
        table.remove(op(.int(2)), client: 1)  // another operation with b's id: not b
        table.remove(a, client: 1)  // already gone
        table.remove(b, client: 5)  // not that client's
        #expect(table.count == 2)
        #expect(table.find(client: 1, id: .int(2)) === b)
        #expect(table.countsByClient == [1: 2])
    }

    @Test("a client that leaves hands back its requests, and only its own")
    func leaving() {
        var table = InflightRequests()
        let mine = [op(.int(1)), op(.int(2)), op(.int(3))]
        let added = add(&table, mine, client: 4) + add(&table, [op(.int(1))], client: 5)
        #expect(added == [true, true, true, true])
        let handed = table.removeClient(4)
        #expect(Set(handed.map(ObjectIdentifier.init)) == Set(mine.map(ObjectIdentifier.init)))
        #expect(table.count == 1)
        #expect(table.count(of: 4) == 0)
        #expect(table.find(client: 4, id: .int(2)) == nil)
        table.remove(mine[0], client: 4)  // its answer comes after it left
        #expect(table.count == 1)
        let nothing = table.removeClient(4)
        #expect(nothing.isEmpty)
        #expect(table.countsByClient == [5: 1])
    }
}
