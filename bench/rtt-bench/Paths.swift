import ControlProtocol
import Glibc
import SystemCalls

/// One line exchange at a time over a descriptor (a pty slave or a Unix socket): write a line,
/// then read up to the next newline. Every wait is a `poll` bounded at five seconds.
///
/// Threading: main thread.
final class LineEndpoint {
    private var owner: OwnedFD?
    private let fd: CInt
    private var chunk = [UInt8](repeating: 0, count: 65_536)
    private var pending: [UInt8] = []

    init(owning descriptor: consuming OwnedFD) {
        fd = descriptor.rawValue
        owner = consume descriptor
    }

    func close() { owner = nil }

    func send(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let result = try bytes.withUnsafeBytes { buffer in
                try FileIO.write(fd, from: UnsafeRawBufferPointer(rebasing: buffer[offset...]))
            }
            switch result {
            case .processed(let count): offset += count
            case .wouldBlock: try wait(Int16(POLLOUT))
            }
        }
    }

    /// The next line, without its newline.
    func readLine() throws -> ArraySlice<UInt8> {
        while true {
            if let newline = pending.firstIndex(of: 0x0A) {
                let line = pending[..<newline]
                pending.removeSubrange(...newline)
                return line
            }
            try wait(Int16(POLLIN))
            let result = try chunk.withUnsafeMutableBytes { try FileIO.read(fd, into: $0) }
            switch result {
            case .processed(0): throw BenchError("the other end closed the connection")
            case .processed(let count): pending += chunk[..<count]
            case .wouldBlock: continue
            }
        }
    }

    private func wait(_ events: Int16) throws {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        if Glibc.poll(&entry, 1, 5_000) == 0 { throw BenchError("no progress for 5 s on fd \(fd)") }
    }
}

/// A way to do one 16-byte round trip with an echo accessory, timed.
///
/// Threading: main thread.
protocol RoundTripPath: AnyObject {
    var name: String { get }
    /// Does exchange number `sequence` and returns its round-trip time in nanoseconds; throws
    /// if the answer is not this request's own payload.
    func exchange(_ sequence: Int) throws -> UInt64
}

/// The 16-byte payload of exchange `sequence`: `rtt-` and twelve digits. Any thread.
func payload(_ sequence: Int) -> [UInt8] {
    var digits = Array(String(sequence).utf8)
    digits = [UInt8](repeating: UInt8(ascii: "0"), count: max(0, 12 - digits.count)) + digits.suffix(12)
    return Array("rtt-".utf8) + digits
}

/// The client opens the pty slave itself (raw mode, `O_NOCTTY`) and writes a line, reads a line.
///
/// Threading: main thread.
final class DirectPath: RoundTripPath {
    let name = "direct (pty)"
    let endpoint: LineEndpoint

    init(slave path: String) throws {
        let fd = try FileIO.open(path, flags: FileIO.OpenFlag.readWrite | FileIO.OpenFlag.noControllingTerminal)
        try PseudoTerminal.makeRaw(fd.rawValue)
        endpoint = LineEndpoint(owning: fd)
    }

    func exchange(_ sequence: Int) throws -> UInt64 {
        let bytes = payload(sequence)
        let line = bytes + [0x0A]
        let start = Clock.nanoseconds()
        try endpoint.send(line)
        let answer = try endpoint.readLine()
        let elapsed = Clock.nanoseconds() - start
        guard answer.elementsEqual(bytes) else {
            throw BenchError(
                "direct: sent \(String(decoding: bytes, as: UTF8.self)), got \(String(decoding: answer, as: UTF8.self))"
            )
        }
        return elapsed
    }
}

/// A `transact` of the same payload through the daemon's socket (newline-delimited JSON-RPC).
///
/// Threading: main thread.
final class DaemonPath: RoundTripPath {
    let name = "accessoryd (transact)"
    let endpoint: LineEndpoint
    let device: String

    init(socket path: String, device: String) throws {
        endpoint = LineEndpoint(owning: try Socket.connectedUnixStream(to: .path(path)))
        self.device = device
    }

    /// One request line (with its newline).
    func requestLine(id: Int, method: String, params: JSONObject?) -> [UInt8] {
        var object: JSONObject = ["jsonrpc": "2.0", "id": .int(id), "method": .string(method)]
        if let params { object.append("params", .object(params)) }
        var line: [UInt8] = []
        JSONOutput.appendObject(object, to: &line)
        line.append(0x0A)
        return line
    }

    /// Sends a request and returns its response (for setup calls, not timed).
    func call(id: Int, method: String, params: JSONObject? = nil) throws -> Response {
        try endpoint.send(requestLine(id: id, method: method, params: params))
        while true {
            let message = try ServerMessage.decode(try endpoint.readLine())
            if case .response(let response) = message, response.id == .int(Int64(id)) { return response }
        }
    }

    func exchange(_ sequence: Int) throws -> UInt64 {
        let bytes = payload(sequence)
        let params: JSONObject = ["device": .string(device), "data": .string(String(decoding: bytes, as: UTF8.self))]
        let line = requestLine(id: sequence, method: "transact", params: params)
        let start = Clock.nanoseconds()
        try endpoint.send(line)
        let answer = try endpoint.readLine()
        let elapsed = Clock.nanoseconds() - start
        guard case .response(let response) = try ServerMessage.decode(answer), response.id == .int(Int64(sequence)),
            let frames = response.result?["frames"]?.arrayValue, frames.count == 1,
            frames[0]["data"]?.stringValue == String(decoding: bytes, as: UTF8.self)
        else {
            throw BenchError("accessoryd: request \(sequence) got \(String(decoding: answer, as: UTF8.self))")
        }
        return elapsed
    }
}
