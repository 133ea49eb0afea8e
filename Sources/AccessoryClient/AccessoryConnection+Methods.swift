import ControlProtocol
import JSONCodec

/// The protocol's methods, typed. Each throws ``ClientError/rpc(_:)`` with the
/// daemon's error (`unknown_device`, `timed_out`, …), ``ClientError/disconnected`` when the
/// connection ends first, or ``ClientError/protocolError(_:)`` when the result has the wrong
/// shape. Durations are sent in whole milliseconds, rounded up.
///
/// Threading: any thread.
extension AccessoryConnection {
    /// `devices.list`: every configured accessory with its state.
    package func listDevices() async throws(ClientError) -> [DeviceSummary] {
        try decode(try await call(.devicesList), DevicesListResult.init(json:)).devices
    }

    /// `device.status`: state, identity, settings, counters and last error of `device`.
    package func status(device: String) async throws(ClientError) -> JSONObject {
        try object(try await call(.deviceStatus(DeviceParams(device: device))))
    }

    /// `daemon.status`: version, uptime, clients, counters.
    package func daemonStatus() async throws(ClientError) -> JSONObject {
        try object(try await call(.daemonStatus))
    }

    /// `transact`: sends one frame (`data`, before framing) and returns the response frames.
    /// `timeout` bounds the exchange once it starts (default: the accessory's); `wait` bounds the
    /// wait for its turn in the queue or behind another client's lock (default: no bound).
    package func transact(
        device: String,
        data: [UInt8],
        timeout: Duration? = nil,
        wait: Duration? = nil
    ) async throws(ClientError) -> TransactResult {
        let params = TransferParams(device: device, data: data, timeoutMs: timeout?.ms, waitMs: wait?.ms)
        return try decode(try await call(.transact(params)), TransactResult.init(json:))
    }

    /// `transact` with a text frame (its UTF-8).
    package func transact(
        device: String,
        text: String,
        timeout: Duration? = nil,
        wait: Duration? = nil
    ) async throws(ClientError) -> TransactResult {
        try await transact(device: device, data: Array(text.utf8), timeout: timeout, wait: wait)
    }

    /// `write`: sends one frame without waiting for a response; returns the bytes written
    /// (framing included).
    package func write(
        device: String,
        data: [UInt8],
        timeout: Duration? = nil,
        wait: Duration? = nil
    ) async throws(ClientError) -> WriteResult {
        let params = TransferParams(device: device, data: data, timeoutMs: timeout?.ms, waitMs: wait?.ms)
        return try decode(try await call(.write(params)), WriteResult.init(json:))
    }

    /// `read`: frames that arrive within `timeout`, at most `maxFrames`.
    package func read(device: String, timeout: Duration? = nil, maxFrames: Int? = nil) async throws(ClientError)
        -> ReadResult
    {
        let params = ReadParams(device: device, timeoutMs: timeout?.ms, maxFrames: maxFrames.map(Int64.init))
        return try decode(try await call(.read(params)), ReadResult.init(json:))
    }

    /// `subscribe`: starts notifications on ``events`` for `device` (nil: every accessory this
    /// user may see) and `events` kinds (nil: all).
    package func subscribe(device: String? = nil, events: Set<EventKind>? = nil) async throws(ClientError) {
        _ = try await call(.subscribe(SubscriptionParams(device: device, events: events)))
    }

    /// `unsubscribe`: stops them.
    package func unsubscribe(device: String? = nil, events: Set<EventKind>? = nil) async throws(ClientError) {
        _ = try await call(.unsubscribe(SubscriptionParams(device: device, events: events)))
    }

    /// `lock`: takes an exclusive lease on `device`, waiting at most `timeout` for it; the lease
    /// lasts `lease` (default: the daemon's) unless released, and ends when this connection
    /// closes. Returns the daemon's result object.
    @discardableResult
    package func lock(device: String, timeout: Duration? = nil, lease: Duration? = nil) async throws(ClientError)
        -> JSONValue
    {
        try await call(.lock(LockParams(device: device, timeoutMs: timeout?.ms, leaseMs: lease?.ms)))
    }

    /// `unlock`: releases the lease.
    package func unlock(device: String) async throws(ClientError) {
        _ = try await call(.unlock(DeviceParams(device: device)))
    }

    /// `cancel`: asks the daemon to cancel this connection's request `requestID` (see
    /// ``makeRequestID()``). `cancelled` is false when it had already finished or was never
    /// seen. Cancelling a call's task does this by itself.
    @discardableResult
    package func cancel(requestID: RequestID) async throws(ClientError) -> CancelResult {
        try decode(try await call(.cancel(CancelParams(id: requestID))), CancelResult.init(json:))
    }

    private func decode<T>(_ json: JSONValue, _ make: (JSONValue) throws(MessageDecodingError) -> T)
        throws(ClientError) -> T
    {
        do throws(MessageDecodingError) {
            return try make(json)
        } catch {
            throw .protocolError(error.message)
        }
    }

    private func object(_ json: JSONValue) throws(ClientError) -> JSONObject {
        guard case .object(let object) = json else {
            throw .protocolError("the result is \(json.kindDescription), not an object")
        }
        return object
    }
}

extension Duration {
    /// Whole milliseconds, rounded up (so that a short positive timeout never becomes zero),
    /// clamped to `Int64`.
    var ms: Int64 {
        let (seconds, attoseconds) = components
        let perMillisecond: Int64 = 1_000_000_000_000_000
        var whole = attoseconds / perMillisecond
        if attoseconds % perMillisecond > 0 { whole += 1 }
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1000)
        if overflow { return seconds < 0 ? .min : .max }
        let (sum, overflow2) = scaled.addingReportingOverflow(whole)
        return overflow2 ? .max : sum
    }
}
