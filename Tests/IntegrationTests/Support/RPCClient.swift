import Glibc
import JSONCodec
import SystemCalls

@testable import ControlProtocol

/// A blocking client of the daemon's socket for tests: newline-delimited JSON-RPC, every read
/// and write bounded by a deadline (`poll`). Responses that arrive while another one is awaited
/// are kept for later; notifications are kept in ``notifications`` (or only counted).
///
/// Threading: one thread at a time (the test's thread, or the one worker thread that made it).
final class RPCClient {
    private var socket: OwnedFD?
    private let fd: CInt
    private var inbound: [UInt8] = []
    private var scanned = 0
    private var nextID: Int64 = 1
    /// Responses read while waiting for another id, in arrival order.
    private(set) var unclaimed: [Response] = []
    /// Notifications read so far (when ``keepsNotifications``).
    var notifications: [NotificationMessage] = []
    /// How many notifications were read in all.
    private(set) var notificationCount = 0
    /// False: notifications are counted, not kept (for chatty accessories).
    var keepsNotifications = true
    /// The daemon closed the connection (end of file or reset).
    private(set) var closedByPeer = false

    init(socketPath: String) throws {
        let socket = try Socket.connectedUnixStream(to: .path(socketPath))
        fd = socket.rawValue
        self.socket = consume socket
    }

    /// Closes the connection (idempotent).
    func close() { socket = nil }

    // MARK: - Writing

    /// Sends `bytes` as they are, waiting (bounded) while the socket is full.
    func send(raw bytes: [UInt8], seconds: Double = 10) throws {
        let deadline = Deadline(seconds: seconds)
        var offset = 0
        while offset < bytes.count {
            let result = try bytes.withUnsafeBytes { buffer in
                try Socket.send(fd, from: UnsafeRawBufferPointer(rebasing: buffer[offset...]))
            }
            switch result {
            case .processed(let count): offset += count
            case .wouldBlock: try waitFor(Int16(POLLOUT), deadline, "to send \(bytes.count) bytes")
            }
        }
    }

    /// Sends `text` and a newline.
    func send(line text: String) throws { try send(raw: Array(text.utf8) + [0x0A]) }

    /// Sends a request and returns its id (the next integer unless `id` is given).
    @discardableResult
    func send(_ method: String, _ params: JSONValue? = nil, id: RequestID? = nil) throws -> RequestID {
        let id = id ?? .int(takeID())
        try send(raw: RPCClient.requestLine(id: id, method: method, params: params))
        return id
    }

    func takeID() -> Int64 {
        defer { nextID += 1 }
        return nextID
    }

    static func requestLine(id: RequestID, method: String, params: JSONValue?) -> [UInt8] {
        var object: JSONObject = ["jsonrpc": "2.0"]
        object.append("id", id.json)
        object.append("method", .string(method))
        if let params { object.append("params", params) }
        var line: [UInt8] = []
        JSONOutput.appendObject(object, to: &line)
        line.append(0x0A)
        return line
    }

    // MARK: - Reading

    /// The next line (without its newline), or nil once the daemon has closed the connection.
    /// Throws if nothing complete arrives within `seconds`.
    func readLine(seconds: Double) throws -> [UInt8]? {
        let deadline = Deadline(seconds: seconds)
        while true {
            if let newline = inbound[scanned...].firstIndex(of: 0x0A) {
                let line = Array(inbound[..<newline])
                inbound.removeSubrange(...newline)
                scanned = 0
                return line
            }
            scanned = inbound.count
            if closedByPeer { return nil }
            if try !receive() { try waitFor(Int16(POLLIN), deadline, "for a line from the daemon") }
        }
    }

    /// The next line as text (raw mode, after `attach`), or nil once the connection is closed.
    func readTextLine(seconds: Double = 10) throws -> String? {
        try readLine(seconds: seconds).map { String(decoding: $0, as: UTF8.self) }
    }

    /// Reads what is available; false if nothing was (would block).
    private func receive() throws -> Bool {
        do {
            guard let chunk = try FileIO.read(fd, max: 65_536) else { return false }
            if chunk.isEmpty { closedByPeer = true } else { inbound += chunk }
            return true
        } catch  where error.errno == .connectionReset {
            closedByPeer = true
            return true
        }
    }

    private func waitFor(_ events: Int16, _ deadline: Deadline, _ what: String) throws {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        let ready = Glibc.poll(&entry, 1, deadline.pollMilliseconds)
        if ready == 0 && deadline.hasPassed { throw HarnessError("timed out waiting \(what)") }
    }

    /// The next message, or nil once the connection is closed. Notifications are recorded too.
    func readMessage(seconds: Double) throws -> ServerMessage? {
        guard let line = try readLine(seconds: seconds) else { return nil }
        let message: ServerMessage
        do {
            message = try ServerMessage.decode(line)
        } catch {
            throw HarnessError(
                "the daemon sent a line that is not a message (\(error)): \(String(decoding: line, as: UTF8.self))"
            )
        }
        if case .notification(let n) = message {
            notificationCount += 1
            if keepsNotifications { notifications.append(n) }
        }
        return message
    }

    /// The response to `id` (kept earlier, or read now, keeping other messages for later).
    func response(to id: RequestID, seconds: Double = 10) throws -> Response {
        if let index = unclaimed.firstIndex(where: { $0.id == id }) { return unclaimed.remove(at: index) }
        let deadline = Deadline(seconds: seconds)
        while true {
            guard let message = try readMessage(seconds: deadline.remaining) else {
                throw HarnessError("the daemon closed the connection before answering request \(id)")
            }
            if case .response(let response) = message {
                if response.id == id { return response }
                unclaimed.append(response)
            }
        }
    }

    /// The next response whatever its id (for lines the daemon answers with id null).
    func nextResponse(seconds: Double = 10) throws -> Response {
        if !unclaimed.isEmpty { return unclaimed.removeFirst() }
        let deadline = Deadline(seconds: seconds)
        while true {
            guard let message = try readMessage(seconds: deadline.remaining) else {
                throw HarnessError("the daemon closed the connection while a response was awaited")
            }
            if case .response(let response) = message { return response }
        }
    }

    /// Sends a request and waits for its response.
    func call(_ method: String, _ params: JSONValue? = nil, seconds: Double = 10) throws -> Response {
        try response(to: try send(method, params), seconds: seconds)
    }

    /// The result of a call that must succeed.
    func result(_ method: String, _ params: JSONValue? = nil, seconds: Double = 10) throws -> JSONValue {
        let response = try call(method, params, seconds: seconds)
        guard let result = response.result else {
            throw HarnessError("\(method) \(params?.description ?? "") failed: \(response.error!)")
        }
        return result
    }

    /// The first notification (kept or new) for which `matches` holds; earlier kept ones that do
    /// not match stay kept.
    func notification(
        seconds: Double = 10,
        where matches: (NotificationMessage) -> Bool
    ) throws -> NotificationMessage {
        if let index = notifications.firstIndex(where: matches) { return notifications.remove(at: index) }
        let deadline = Deadline(seconds: seconds)
        while true {
            guard let message = try readMessage(seconds: deadline.remaining) else {
                throw HarnessError("the daemon closed the connection while a notification was awaited")
            }
            switch message {
            case .notification(let n) where matches(n):
                if keepsNotifications { notifications.removeLast() }
                return n
            case .response(let response): unclaimed.append(response)
            case .notification: break
            }
        }
    }

    /// Every message that arrives within `seconds` (stops early if the connection closes).
    func messages(during seconds: Double) throws -> [ServerMessage] {
        let deadline = Deadline(seconds: seconds)
        var out: [ServerMessage] = []
        while !deadline.hasPassed && !closedByPeer {
            do {
                guard let message = try readMessage(seconds: deadline.remaining) else { break }
                out.append(message)
            } catch is HarnessError where deadline.hasPassed {
                break
            }
        }
        return out
    }

    /// Reads and discards until the daemon closes the connection; true if it did within `seconds`.
    func waitUntilClosed(seconds: Double) -> Bool {
        let deadline = Deadline(seconds: seconds)
        while !closedByPeer && !deadline.hasPassed {
            inbound.removeAll(keepingCapacity: true)
            scanned = 0
            do {
                if try !receive() { try? waitFor(Int16(POLLIN), deadline, "for the daemon to close") }
            } catch {
                closedByPeer = true  // Any other read error: the connection is gone as well.
            }
        }
        return closedByPeer
    }
}

/// Reading results the way the tests need them. Any thread (values).
extension Response {
    /// The error code, nil on success.
    var code: Int? { error?.code }

    /// The frames of a `transact` or `read` result as text (`data`), nil if not a frames result.
    var frameTexts: [String]? {
        result?["frames"]?.arrayValue?.map { $0["data"]?.stringValue ?? "<binary>" }
    }
}

/// Threading: a value. Any thread.
extension JSONValue {
    /// The number as an `Int`, if it is an integer.
    var intValue: Int? { int64Value.map { Int($0) } }

    /// The number as a `Double`, whether written as an integer or not.
    var doubleValue: Double? {
        switch self {
        case .number(.integer(let value)): Double(value)
        case .number(.double(let value)): value
        default: nil
        }
    }
}
