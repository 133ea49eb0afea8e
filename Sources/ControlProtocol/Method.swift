/// The names of the protocol's methods (docs/protocol.md, "Methods").
///
/// Threading: a value. Any thread.
public enum MethodName: String, Sendable, CaseIterable {
    case devicesList = "devices.list"
    case deviceStatus = "device.status"
    case transact
    case write
    case read
    case subscribe
    case unsubscribe
    case lock
    case unlock
    case cancel
    case daemonStatus = "daemon.status"
    case attach
    case control
    case clientsList = "clients.list"
    case clientDisconnect = "client.disconnect"
}

/// A method call with its typed params, as decoded from (or encoded into) a request.
///
/// Threading: a value. Any thread.
public enum Method: Sendable, Hashable {
    /// `{devices:[{name, state, transport, path, queue_depth}]}`; takes no params.
    case devicesList
    /// State, identity, settings, counters and last error of one accessory.
    case deviceStatus(DeviceParams)
    /// Sends a frame and returns the response frames (`{frames, elapsed_ms}`).
    case transact(TransferParams)
    /// Sends a frame without waiting for a response (`{written}`).
    case write(TransferParams)
    /// Returns frames that arrive (`{frames}`).
    case read(ReadParams)
    /// Starts `device.data` / `device.state` notifications.
    case subscribe(SubscriptionParams)
    /// Stops them.
    case unsubscribe(SubscriptionParams)
    /// Takes an exclusive lease on an accessory.
    case lock(LockParams)
    /// Releases it.
    case unlock(DeviceParams)
    /// Cancels an earlier request of this connection (`{cancelled}`).
    case cancel(CancelParams)
    /// Version, uptime, clients, counters; takes no params.
    case daemonStatus
    /// Holds the accessory for this connection and turns the connection into a raw byte stream
    /// to and from it (`{attached, device}`, then no more JSON), until the client disconnects.
    case attach(AttachParams)
    /// Sets DTR/RTS, runs a timed sequence of line settings, sends a break; queued single-file
    /// like `transact` (`{device, lines}`: the modem lines afterwards, or null).
    case control(ControlParams)
    /// The connected clients and what each holds; for root and the daemon's own user only
    /// (`{clients:[…]}`). Takes no params.
    case clientsList
    /// Ends one client's connection: its locks are released, its requests answered
    /// (`{disconnected, id}`). For root and the daemon's own user only.
    case clientDisconnect(ClientParams)

    /// The method's wire name.
    public var name: MethodName {
        switch self {
        case .devicesList: .devicesList
        case .deviceStatus: .deviceStatus
        case .transact: .transact
        case .write: .write
        case .read: .read
        case .subscribe: .subscribe
        case .unsubscribe: .unsubscribe
        case .lock: .lock
        case .unlock: .unlock
        case .cancel: .cancel
        case .daemonStatus: .daemonStatus
        case .attach: .attach
        case .control: .control
        case .clientsList: .clientsList
        case .clientDisconnect: .clientDisconnect
        }
    }

    /// The accessory the call names, if any: what the access policy checks.
    package var device: String? {
        switch self {
        case .devicesList, .daemonStatus, .cancel, .clientsList, .clientDisconnect: nil
        case .deviceStatus(let params), .unlock(let params): params.device
        case .transact(let params), .write(let params): params.device
        case .read(let params): params.device
        case .subscribe(let params), .unsubscribe(let params): params.device
        case .lock(let params): params.device
        case .attach(let params): params.device
        case .control(let params): params.device
        }
    }

    /// Whether a successful answer turns the connection into raw bytes: the server must not read
    /// anything after this request as JSON until it knows the outcome.
    package var switchesToRawBytes: Bool {
        if case .attach = self { return true }
        return false
    }
}
