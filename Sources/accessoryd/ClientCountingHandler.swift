import ControlProtocol
import ControlServer

/// Passes every request to the daemon's handler, and tells ``ServiceManager`` how many clients
/// are connected (for `STATUS=`).
///
/// Threading: the control server calls it on the control loop; `clients` is control loop only.
final class ClientCountingHandler: ControlRequestHandler, @unchecked Sendable {  // @unchecked: control loop only.
    let inner: any ControlRequestHandler
    let service: ServiceManager
    private var clients = 0

    init(_ inner: any ControlRequestHandler, service: ServiceManager) {
        self.inner = inner
        self.service = service
    }

    func connectionDidOpen(_ connection: ClientConnection) {
        inner.connectionDidOpen(connection)
        clients += 1
        service.clientsChanged(clients)
    }

    func handle(_ request: Request, from connection: ClientConnection) {
        inner.handle(request, from: connection)
    }

    func connectionDidClose(_ connection: ClientConnection) {
        inner.connectionDidClose(connection)
        clients -= 1
        service.clientsChanged(clients)
    }
}
