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

    @Test("an id in use is refused, as the first request or among the others; another client may use it")
    func idsInUse() {
        var table = InflightRequests()
        let (a, b, c) = (op(.int(1)), op(.string("two")), op(.int(3)))
        #expect(table.insert(a, client: 7))
        #expect(table.insert(b, client: 7))
        #expect(table.insert(c, client: 7))
        #expect(!table.insert(op(.int(1)), client: 7), "the id of the first")
        #expect(!table.insert(op(.string("two")), client: 7), "an id among the others")
        #expect(table.insert(op(.int(1)), client: 8), "another client's ids are its own")
        #expect(!table.insert(op(.int(3)), client: 7), "with the cache on client 8")
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
        #expect(table.insert(a, client: 1))
        #expect(table.insert(b, client: 1))
        table.remove(a, client: 1)
        #expect(table.count(of: 1) == 1)
        #expect(table.find(client: 1, id: .int(1)) == nil)
        let again = op(.int(1))
        #expect(table.insert(again, client: 1), "the id is free again")
        #expect(!table.insert(op(.int(2)), client: 1), "b still holds its id")
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
        for o in mine { #expect(table.insert(o, client: 4)) }
        #expect(table.insert(op(.int(1)), client: 5))
        let handed = table.removeClient(4)
        #expect(Set(handed.map(ObjectIdentifier.init)) == Set(mine.map(ObjectIdentifier.init)))
        #expect(table.count == 1)
        #expect(table.count(of: 4) == 0)
        #expect(table.find(client: 4, id: .int(2)) == nil)
        table.remove(mine[0], client: 4)  // its answer comes after it left
        #expect(table.count == 1)
        #expect(table.removeClient(4).isEmpty)
        #expect(table.countsByClient == [5: 1])
    }
}
