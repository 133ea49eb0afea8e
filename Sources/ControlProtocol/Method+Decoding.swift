import JSONCodec

extension Method {
    /// Decodes a method call from its name and params (`nil` when the request had none).
    ///
    /// Throws `methodNotFound` for an unknown name and `invalidParams` for wrong params:
    /// unknown members (named), wrong types, both `data` and `data_base64`, invalid base64,
    /// numbers out of range.
    static func decode(name: String, params: JSONObject?) throws(RPCError) -> Method {
        guard let method = MethodName(rawValue: name) else {
            let hint = Suggestion.hint(for: name, among: MethodName.allCases.map(\.rawValue))
            throw RPCError(.methodNotFound, "unknown method \(ValueDescription.quoted(name))\(hint)")
        }
        let params = params ?? JSONObject()
        func reader(_ accepted: [String]) throws(RPCError) -> ParamReader {
            try ParamReader(method: method, params: params, accepted: accepted)
        }
        switch method {
        case .devicesList:
            _ = try reader([])
            return .devicesList
        case .daemonStatus:
            _ = try reader([])
            return .daemonStatus
        case .clientsList:
            _ = try reader([])
            return .clientsList
        case .clientDisconnect:
            let read = try reader(["id"])
            let id = try read.required("id") { (key) throws(RPCError) in
                try read.integer(key, in: 1...Int64.max, what: "a client id (a positive integer, from clients.list)")
            }
            return .clientDisconnect(ClientParams(id: UInt64(id)))
        case .deviceStatus, .unlock:
            let read = try reader(["device"])
            let params = DeviceParams(device: try read.required("device", read.device))
            return method == .unlock ? .unlock(params) : .deviceStatus(params)
        case .transact, .write:
            let read = try reader(["device", "data", "data_base64", "timeout_ms", "wait_ms"])
            let params = TransferParams(
                device: try read.required("device", read.device),
                data: try read.payload(),
                timeoutMs: try read.milliseconds("timeout_ms"),
                waitMs: try read.milliseconds("wait_ms", allowZero: true)
            )
            return method == .transact ? .transact(params) : .write(params)
        case .read:
            let read = try reader(["device", "timeout_ms", "max_frames"])
            return .read(
                ReadParams(
                    device: try read.required("device", read.device),
                    timeoutMs: try read.milliseconds("timeout_ms"),
                    maxFrames: try read.integer(
                        "max_frames",
                        in: 1...ParamLimits.maxFrames,
                        what: "a positive integer"
                    )
                )
            )
        case .subscribe, .unsubscribe:
            let read = try reader(["device", "events"])
            let params = SubscriptionParams(device: try read.device(), events: try read.events())
            return method == .subscribe ? .subscribe(params) : .unsubscribe(params)
        case .lock:
            let read = try reader(["device", "timeout_ms", "lease_ms"])
            return .lock(
                LockParams(
                    device: try read.required("device", read.device),
                    timeoutMs: try read.milliseconds("timeout_ms"),
                    leaseMs: try read.milliseconds("lease_ms")
                )
            )
        case .attach:
            let read = try reader(["device", "wait_ms"])
            return .attach(
                AttachParams(
                    device: try read.required("device", read.device),
                    waitMs: try read.milliseconds("wait_ms", allowZero: true)
                )
            )
        case .control:
            return .control(
                try reader(["device", "dtr", "rts", "sequence", "break_ms", "wait_ms", "session"]).controlParams()
            )
        case .cancel:
            let read = try reader(["id"])
            return .cancel(CancelParams(id: try read.required("id", read.requestID)))
        }
    }
}
