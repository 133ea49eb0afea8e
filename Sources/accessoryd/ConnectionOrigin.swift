import AccessoryCore
import ControlProtocol
import ControlServer
import Glibc
import JSONCodec
import SystemCalls

/// A control-server connection seen as a request origin by the accessory registry.
///
/// Any thread (immutable; the connection's senders are thread-safe).
final class ConnectionOrigin: RequestOrigin {
    let connection: ClientConnection
    let connectedSinceMs: Int64

    init(_ connection: ClientConnection) {
        self.connection = connection
        // Made when the connection opens (``RegistryHandler/connectionDidOpen(_:)``).
        self.connectedSinceMs = WallClock.microsecondsSinceEpoch() / 1000
    }

    var clientID: UInt64 { connection.id }
    var uid: uid_t { connection.credentials.uid }
    var gid: gid_t { connection.credentials.gid }
    var groups: [gid_t] { connection.credentials.groups }
    var pid: Int32 { connection.credentials.pid }

    func respond(id: RequestID, result: Result<any JSONEncodable & Sendable, RPCError>) {
        switch result {
        case .success(let value): connection.respond(id: id, result: value)
        case .failure(let error): connection.respond(id: id, error: error)
        }
    }

    func respond<Answer: JSONEncodable & Sendable>(id: RequestID, success result: Answer) {
        connection.respond(id: id, result: result)
    }

    func notify(line: [UInt8]) { connection.send(line: line) }
    func beginRaw(input: @escaping @Sendable ([UInt8]) -> Void) { connection.beginRawInput(input) }
    func pauseRawInput(_ paused: Bool) { connection.pauseRawInput(paused) }
    /// What was sent before (the device's last bytes, a notice) still reaches the client.
    func disconnect(reason: String) { connection.disconnectAfterFlushing(reason) }
}

/// Routes the control server's requests to the accessory registry (which hops to the device
/// loop). Any thread; the server calls it on the control loop.
final class RegistryHandler: ControlRequestHandler {
    let registry: AccessoryRegistry
    /// Origins by connection id, so that the same object is used for every request of a client.
    /// Control loop only (the server calls us there).
    private let origins = OriginTable()

    init(registry: AccessoryRegistry) { self.registry = registry }

    func connectionDidOpen(_ connection: ClientConnection) {
        let origin = ConnectionOrigin(connection)
        origins.insert(origin)
        registry.clientJoined(origin)
    }

    func handle(_ request: Request, from connection: ClientConnection) {
        registry.handle(request, from: origins.origin(for: connection))
    }

    func connectionDidClose(_ connection: ClientConnection) {
        registry.clientLeft(origins.remove(connection))
    }
}

/// Control loop only.
final class OriginTable: @unchecked Sendable {  // @unchecked: used on the control loop only.
    private var table: [UInt64: ConnectionOrigin] = [:]
    /// The origin of the last request's connection: clients send request after request, and a
    /// comparison costs less than a hashed lookup (about 250 instructions a request).
    private var last: ConnectionOrigin?

    func insert(_ o: ConnectionOrigin) { table[o.clientID] = o }

    func origin(for c: ClientConnection) -> ConnectionOrigin {
        if let last, last.connection === c { return last }
        let o: ConnectionOrigin
        if let known = table[c.id] {
            o = known
        } else {
            o = ConnectionOrigin(c)
            table[c.id] = o
        }
        last = o
        return o
    }

    func remove(_ c: ClientConnection) -> ConnectionOrigin {
        if last?.connection === c { last = nil }
        return table.removeValue(forKey: c.id) ?? ConnectionOrigin(c)
    }
}
