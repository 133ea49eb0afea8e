import ControlProtocol
import JSONCodec

extension SoakClient {
    /// Checks one response: its id was sent on this connection and not answered before, and its
    /// content fits the request (see ``checkResult(_:of:id:)``).
    func check(_ response: Response) {
        let report = world.report
        report.count("responses")
        report.response(code: response.error?.code)
        guard case .int(let id)? = response.id else {
            report.violation("client \(number): a response with id \(response.id?.description ?? "null")")
            return
        }
        guard let call = pending.removeValue(forKey: id) else {
            let what = answered.contains(id) ? "a second response" : "a response to an id never sent"
            report.violation("client \(number): \(what) (id \(id))")
            return
        }
        answered.insert(id)
        world.noteOutcome(of: call, response.error.map { "answered \($0.code)" } ?? "answered")
        checkResult(response, of: call, id: id)
        let outcome: Outcome = response.error.map { .failure(code: $0.code) } ?? .success
        switch call.cancel {
        case .none, .reportedFalse: break
        case .requested: awaitingCancelAnswer[id] = outcome
        case .reportedTrue: checkCancelled(id, outcome)
        }
        onResponse?(response)
    }

    /// `cancel` said `cancelled: true`: the request's own response must be the `cancelled` error
    /// (no data, and not another error it ended with instead).
    private func checkCancelled(_ id: Int64, _ outcome: Outcome) {
        switch outcome {
        case .success:
            world.report.violation("client \(number): request \(id) was reported cancelled but answered with data")
        case .failure(code: ErrorCode.cancelled.rawValue):
            world.report.count("cancelled requests answered 1004")
        case .failure(let code):
            world.report.violation("client \(number): request \(id) was reported cancelled but answered \(code)")
        }
    }

    private func checkResult(_ response: Response, of call: Call, id: Int64) {
        let report = world.report
        let label = "client \(number) \(call.kind.name) \(id)"
        if let error = response.error {
            checkError(error, of: call, label: label)
            return
        }
        let result = response.result!
        switch call.kind {
        case .transact(let device, let payload, let slow):
            guard let frames = frames(result, label) else { return }
            if let last = frames.last, last == payload,
                frames.dropLast().allSatisfy({ Payload.spontaneousDevice($0) == device })
            {
                if slow { report.count("slow transacts answered in time") }
            } else {
                report.violation(
                    "\(label) on echo\(device) got someone else's frames: "
                        + frames.map(world.history(of:)).joined(separator: " | ") + "; its own: "
                        + world.history(of: payload)
                )
            }
        case .write(_, let payload):
            if result["written"]?.int64Value != Int64(payload.count) {
                report.violation(
                    "\(label): written \(result["written"]?.description ?? "missing"), sent \(payload.count)"
                )
            }
        case .read(let device, let maxFrames):
            guard let frames = frames(result, label) else { return }
            if frames.isEmpty || frames.count > maxFrames
                || !frames.allSatisfy({ Payload.spontaneousDevice($0) == device })
            {
                report.violation("\(label) on echo\(device) got frames " + frames.map(Payload.text).description)
            }
        case .lock(let device):
            holding.insert(device)
            report.count("locks granted")
        case .cancel(let target):
            guard let cancelled = result["cancelled"]?.boolValue else {
                report.violation("\(label): no cancelled flag in \(result)")
                return
            }
            cancelAnswered(target: target, cancelled: cancelled, label: label)
        case .subscribe, .unsubscribe, .unlock:
            break
        }
    }

    private func cancelAnswered(target: Int64, cancelled: Bool, label: String) {
        world.report.count(cancelled ? "cancels: cancelled true" : "cancels: cancelled false")
        if pending[target] != nil {
            pending[target]?.cancel = cancelled ? .reportedTrue : .reportedFalse
        } else if let outcome = awaitingCancelAnswer.removeValue(forKey: target) {
            if cancelled { checkCancelled(target, outcome) }
        } else if cancelled {
            world.report.violation("\(label): request \(target) was answered before the cancel, yet cancelled: true")
        }
    }

    /// The errors a request may get in this soak (removal, absence, timeouts, full queues, lock
    /// waits, cancels it asked for); any other is a violation.
    private func checkError(_ error: RPCError, of call: Call, label: String) {
        switch ErrorCode(rawValue: error.code) {
        case .deviceUnavailable?, .deviceRemoved?, .timedOut?, .queueFull?, .ioError?:
            return
        case .cancelled? where call.cancel != .none:
            return
        case .permissionDenied? where isUnlock(call):
            // unlock after the lease expired ("not locked"), or another client holds it by now.
            return
        default:
            world.report.violation("\(label): unexpected error \(error.code) \(error.message)")
        }
    }

    private func isUnlock(_ call: Call) -> Bool {
        if case .unlock = call.kind { return true }
        return false
    }

    private func frames(_ result: JSONValue, _ label: String) -> [[UInt8]]? {
        do throws(MessageDecodingError) {
            guard let list = result["frames"]?.arrayValue else { throw MessageDecodingError("no frames") }
            return try list.map { value throws(MessageDecodingError) in try Frame(json: value).bytes }
        } catch {
            world.report.violation("\(label): bad result \(result): \(error)")
            return nil
        }
    }

    /// A notification: `device.data` frames must be spontaneous lines of that accessory or
    /// `write` payloads sent to it; a `transact` answer there means a late answer escaped the
    /// resync (counted; a violation only if it was not a slow one).
    func check(_ notification: NotificationMessage) {
        let report = world.report
        guard let event = try? notification.event() else {
            report.violation("client \(number): undecodable notification \(notification.method)")
            return
        }
        switch event {
        case .state:
            report.count("notifications device.state")
        case .traffic(let record):
            report.violation("client \(number): device.traffic on \(record.device) without subscribing to traffic")
        case .data(let name, let frame):
            report.count("notifications device.data")
            guard let device = world.deviceNumber(name) else {
                report.violation("client \(number): device.data for unknown accessory \(name)")
                return
            }
            switch Payload.kind(of: frame.bytes) {
            case .write? where world.written[device].contains(frame.bytes): return
            case .spontaneous? where Payload.spontaneousDevice(frame.bytes) == device: return
            case .slow?: report.count("late slow answers seen as device.data")
            case .transact?:
                report.violation("client \(number): device.data on \(name) carried \(world.history(of: frame.bytes))")
            default:
                report.violation("client \(number): device.data on \(name) carried \(Payload.text(frame.bytes))")
            }
        }
    }
}
