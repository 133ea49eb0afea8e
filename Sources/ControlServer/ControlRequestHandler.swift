import ControlProtocol

/// What the control server hands decoded requests to: the daemon. The server knows nothing about
/// accessories; the handler knows nothing about sockets.
///
/// Threading: every method is called on the control loop thread, one at a time. A handler must
/// not block that thread: it hops to the device loop (`perform`) and answers later, from any
/// thread, through the connection.
package protocol ControlRequestHandler: AnyObject, Sendable {
    /// A client connected (its credentials are known). Control loop thread. Optional.
    func connectionDidOpen(_ connection: ClientConnection)

    /// A request arrived. The handler must eventually call one of the connection's `respond`
    /// methods exactly once for it, from any thread (a response after the connection closed is
    /// dropped). Control loop thread.
    func handle(_ request: Request, from connection: ClientConnection)

    /// The connection closed, for whatever reason (``ClientConnection/closeReason``): cancel its
    /// queued requests, finish its executing one, release its locks and subscriptions. Called
    /// exactly once per connection, after which its senders are no-ops. Control loop thread.
    func connectionDidClose(_ connection: ClientConnection)
}

extension ControlRequestHandler {
    package func connectionDidOpen(_ connection: ClientConnection) {}
}
