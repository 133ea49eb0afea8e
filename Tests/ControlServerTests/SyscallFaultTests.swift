import AccessoryTestSupport
import ControlProtocol
import Glibc
import JSONCodec
import SystemCalls
import Testing

@testable import ControlServer

/// Faults injected through the system-call seam at the control server: every call interrupted,
/// every write first refused and then moving one byte, and a write failing with `ENOSPC`.
@Suite("control socket under injected system-call faults")
struct SyscallFaultTests {
    /// The server-side descriptor of the connection that opened `index`-th. Control loop read.
    static func serverFD(_ h: ServerHarness, connection index: Int) throws -> CInt {
        try #require(Wait.until(seconds: 5) { h.handler.connections.value.count > index })
        let connection = h.handler.connections.value[index]
        let fd = Wait.onLoop(h.loop) { connection.source?.fd ?? -1 }
        return try #require(fd.flatMap { $0 >= 0 ? $0 : nil })
    }

    @Test("EINTR on every call: accept, reads and writes still work")
    func interruptedEverywhere() throws {
        try withServer { h in
            // Every wrapped call in this process (the server's loop, accept, the clients) is
            // interrupted once; the seam retries each.
            let eintr = EveryCallFault(.error(.interrupted)) { _, _ in true }
            let token = eintr.install()
            defer { FaultInjection.remove(token) }
            let clients = try (0..<3).map { _ in try h.client() }
            for round in 0..<5 {
                for (i, client) in clients.enumerated() {
                    let response = try #require(client.call(listRequest(id: round * 10 + i)))
                    #expect(response.id == .int(Int64(round * 10 + i)) && response.result != nil)
                }
            }
            #expect(eintr.injected >= 30, "only \(eintr.injected) calls interrupted")
            let interrupted = eintr.injectedCalls
            #expect(interrupted.isSuperset(of: [.accept4, .read, .send, .epoll_wait]), "interrupted: \(interrupted)")
            #expect(h.server.statistics.acceptedTotal == 3)
            #expect(h.handler.closed.value.isEmpty)
        }
    }

    @Test("EAGAIN on every write, then one byte per write: a 20 kB reply arrives whole and in order")
    func refusedThenOneByteWrites() throws {
        let blob = String((0..<20_000).map { Character(UnicodeScalar(UInt8(0x41 + $0 % 26))) })
        let handler = TestHandler { request, connection in
            connection.respond(id: request.id, result: JSONValue.object(["blob": .string(blob)]))
        }
        try withServer(handler: handler) { h in
            let client = try h.client()
            let fd = try Self.serverFD(h, connection: 0)
            let refuse = EveryCallFault(.error(.resourceTemporarilyUnavailable)) { name, f in f == fd && name == .send }
            let refusal = refuse.install()
            defer { FaultInjection.remove(refusal) }
            let oneByte = FaultInjection.install { name, f in f == fd && name == .send ? .limit(1) : nil }
            defer { FaultInjection.remove(oneByte) }

            for id in 1...2 {
                let response = try #require(client.call(listRequest(id: id), seconds: 30))
                #expect(response.id == .int(Int64(id)))
                #expect(response.result?["blob"]?.stringValue == blob)
            }
            // Every byte of both replies went out one at a time, each after a refusal.
            #expect(refuse.injected > 40_000, "\(refuse.injected) refusals")
            #expect(h.handler.closed.value.isEmpty)
        }
    }

    @Test("ENOSPC writing to one client: that client is closed with the reason logged, others unaffected")
    func noSpaceClosesOnlyThatClient() throws {
        try withServer { h in
            let bystander = try h.client()
            #expect(bystander.call(listRequest(id: 1))?.result != nil)
            let victim = try h.client()
            let fd = try Self.serverFD(h, connection: 1)
            // Once: the descriptor number is reused by the next connection after this one closes.
            let fired = Shared(false)
            let token = FaultInjection.install { name, f in
                guard f == fd, name == .send else { return nil }
                let first = fired.mutate { done -> Bool in
                    defer { done = true }
                    return !done
                }
                return first ? .error(.noSpace) : nil
            }
            defer { FaultInjection.remove(token) }

            #expect(victim.send(listRequest(id: 2) + "\n"))
            #expect(victim.waitForClose(), "the client whose replies cannot be written is still connected")
            #expect(Wait.until(seconds: 5) { h.handler.closed.value.count == 1 })
            let record = try #require(h.handler.closed.value.first)
            #expect(record.reason == .writeFailed(.noSpace))
            #expect(h.logs.lines.value.contains { $0.1.contains("write failed") }, "\(h.logs.lines.value)")
            // The bystander is served, and so is a newcomer.
            for id in 3...5 { #expect(bystander.call(listRequest(id: id))?.result != nil) }
            let newcomer = try h.client()
            #expect(newcomer.call(listRequest(id: 6))?.result != nil)
            #expect(h.server.statistics.clients == 2)
        }
    }
}
