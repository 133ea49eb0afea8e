import AccessoryTestSupport
import ControlProtocol
import ControlServer
import IOLoop
import JSONCodec

/// A handler for tests: runs a behaviour per request and records what it saw.
///
/// Threading: any thread (state in `Shared`).
final class TestHandler: ControlRequestHandler {
    typealias Behavior = @Sendable (Request, ClientConnection) -> Void

    struct Closed: Sendable {
        var id: UInt64
        var reason: CloseReason?
        var pendingRequests: Int
    }

    let behavior: Behavior
    let requests = Shared<[RequestID]>([])
    let opened = Shared<[UInt64]>([])
    let closed = Shared<[Closed]>([])
    let connections = Shared<[ClientConnection]>([])

    init(_ behavior: @escaping Behavior = TestHandler.echo) { self.behavior = behavior }

    /// Answers `{"method": <name>}` at once.
    static let echo: Behavior = { request, connection in
        connection.respond(id: request.id, result: JSONValue.object(["method": .string(request.method.name.rawValue)]))
    }

    /// Never answers.
    static let hold: Behavior = { _, _ in }

    /// Answers with `{"method"}` from `loop` (another thread), in the order received.
    static func echo(from loop: IOLoop) -> Behavior {
        { request, connection in loop.perform { TestHandler.echo(request, connection) } }
    }

    func connectionDidOpen(_ connection: ClientConnection) {
        opened.mutate { $0.append(connection.id) }
        connections.mutate { $0.append(connection) }
    }

    func handle(_ request: Request, from connection: ClientConnection) {
        requests.mutate { $0.append(request.id) }
        behavior(request, connection)
    }

    func connectionDidClose(_ connection: ClientConnection) {
        let record = Closed(
            id: connection.id,
            reason: connection.closeReason,
            pendingRequests: connection.pendingRequestCount
        )
        closed.mutate { $0.append(record) }
    }

    func closeRecord(_ id: UInt64) -> Closed? { closed.value.first { $0.id == id } }
}
