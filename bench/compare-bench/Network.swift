import Glibc
import SystemCalls

/// The TCP side of the network targets (ser2net's and accessoryd's raw TCP and RFC 2217
/// listeners): a free loopback port, and a connection to one. Loopback only.
///
/// Threading: main thread.
enum Loopback {
    /// A port on 127.0.0.1 that nothing listens on now (the kernel's choice for a bind to 0).
    static func freePort() throws -> UInt16 {
        let socket = try Socket.socket(domain: AF_INET, type: CInt(SOCK_STREAM.rawValue))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket.rawValue, $0, length) == 0 && getsockname(socket.rawValue, $0, &length) == 0
            }
        }
        guard bound else { throw BenchError("cannot bind a loopback port: errno \(errno)") }
        return UInt16(bigEndian: address.sin_port)
    }

    /// A connection to 127.0.0.1:`port` (Nagle off, as every relay here sets on its side), or
    /// nil while nothing accepts there.
    static func connect(port: UInt16) throws -> OwnedFD? {
        let socket = try Socket.socket(domain: AF_INET, type: CInt(SOCK_STREAM.rawValue))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let started = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket.rawValue, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
                    || errno == EINPROGRESS
            }
        }
        guard started else { return nil }
        // Non-blocking: wait (bounded) for the connection to complete, then read its outcome.
        var entry = pollfd(fd: socket.rawValue, events: Int16(POLLOUT), revents: 0)
        guard Glibc.poll(&entry, 1, 5_000) == 1, (try? Socket.pendingError(socket.rawValue)) ?? nil == nil else {
            return nil
        }
        try Socket.setOption(socket.rawValue, level: CInt(IPPROTO_TCP), name: TCP_NODELAY, value: 1)
        return socket
    }
}

/// Telnet (RFC 854) as an RFC 2217 client sees it on the way in: commands (`IAC` + verb +
/// option, subnegotiations `IAC SB … IAC SE`) removed, a doubled `IAC` kept as one 0xFF byte.
/// Its state spans reads, so a command split across two arrives whole.
///
/// Threading: a value. Main thread.
struct TelnetDecoder {
    static let iac: UInt8 = 255
    private enum State { case data, command, option, subnegotiation, subnegotiationCommand }
    private var state = State.data

    mutating func feed(_ bytes: ArraySlice<UInt8>) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        for byte in bytes {
            switch state {
            case .data:
                if byte == Self.iac { state = .command } else { out.append(byte) }
            case .command:
                switch byte {
                case Self.iac:
                    out.append(byte)
                    state = .data
                case 250: state = .subnegotiation  // SB
                case 251...254: state = .option  // WILL, WONT, DO, DONT
                default: state = .data
                }
            case .option:
                state = .data
            case .subnegotiation:
                if byte == Self.iac { state = .subnegotiationCommand }
            case .subnegotiationCommand:
                state = byte == 240 ? .data : .subnegotiation  // SE ends it; IAC IAC is data inside
            }
        }
        return out
    }
}

/// An RFC 2217 relay: requests as raw lines with 0xFF doubled; replies are lines once
/// ``TelnetDecoder`` has taken the commands out (the endpoint does that as it reads).
///
/// Threading: a value. Any thread.
struct TelnetWire: Wire {
    /// What an RFC 2217 client says first: binary both ways, and that it speaks COM-PORT-OPTION.
    static let greeting: [UInt8] = [255, 251, 0, 255, 253, 0, 255, 251, 44]

    func request(id: Int, payload: [UInt8]) -> [UInt8] {
        // A loop, not `flatMap` to one-byte arrays: an allocation per byte would make this client,
        // not the server it measures, the limit of RFC 2217 streaming.
        var out: [UInt8] = []
        out.reserveCapacity(payload.count + 1)
        for byte in payload {
            out.append(byte)
            if byte == TelnetDecoder.iac { out.append(byte) }
        }
        out.append(0x0A)
        return out
    }
    func reply(_ line: ArraySlice<UInt8>) throws -> Reply? { Reply(id: nil, payload: line) }
    func streamRequest(id: Int, payloads: [[UInt8]]) -> [UInt8] { payloads.flatMap { request(id: id, payload: $0) } }
    func streamed(_ line: ArraySlice<UInt8>) throws -> ArraySlice<UInt8>? { line }
}
