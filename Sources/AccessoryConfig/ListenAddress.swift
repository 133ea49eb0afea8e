/// A listener's `listen:` value, `127.0.0.1:4001` or `[::1]:4001`: an IP address and a port.
/// Only loopback addresses are accepted (``isLoopback``): the daemon never listens on a network.
///
/// Threading: a value. Any thread.
public struct ListenAddress: Sendable, Hashable, CustomStringConvertible {
    /// 4 bytes (IPv4) or 16 (IPv6), network order.
    public var address: [UInt8]
    public var port: UInt16

    public init(address: [UInt8], port: UInt16) {
        self.address = address
        self.port = port
    }

    /// Parses `host:port` (IPv6 in brackets); nil with why not.
    public static func parse(_ text: String) -> Result<ListenAddress, ListenAddressError> {
        let host: Substring
        let portText: Substring
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]"), text[text.index(after: close)...].hasPrefix(":") else {
                return .failure(.form(text))
            }
            host = text[text.index(after: text.startIndex)..<close]
            portText = text[text.index(close, offsetBy: 2)...]
        } else {
            guard let colon = text.lastIndex(of: ":"), !text[..<colon].contains(":") else {
                return .failure(.form(text))
            }
            host = text[..<colon]
            portText = text[text.index(after: colon)...]
        }
        guard portText.allSatisfy(\.isASCII), let port = UInt16(portText), port > 0 else {
            return .failure(.port(String(portText)))
        }
        guard let bytes = text.hasPrefix("[") ? parseIPv6(host) : parseIPv4(host) else {
            return .failure(.address(String(host)))
        }
        return .success(ListenAddress(address: bytes, port: port))
    }

    /// 127.0.0.0/8, `::1`, or an IPv4-mapped 127.x address.
    public var isLoopback: Bool {
        if address.count == 4 { return address[0] == 127 }
        if address == [UInt8](repeating: 0, count: 15) + [1] { return true }
        return address.prefix(12) == [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] && address[12] == 127
    }

    public var description: String {
        if address.count == 4 { return address.map(String.init).joined(separator: ".") + ":\(port)" }
        let groups = stride(from: 0, to: 16, by: 2).map {
            String(UInt16(address[$0]) << 8 | UInt16(address[$0 + 1]), radix: 16)
        }
        return "[" + groups.joined(separator: ":") + "]:\(port)"
    }

    static func parseIPv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        var bytes: [UInt8] = []
        for part in parts {
            guard (1...3).contains(part.count), part.allSatisfy({ $0.isASCII && $0.isNumber }), let b = UInt8(part)
            else { return nil }
            bytes.append(b)
        }
        return bytes
    }

    static func parseIPv6(_ text: Substring) -> [UInt8]? {
        func groups(_ s: Substring) -> [UInt16]? {
            if s.isEmpty { return [] }
            var out: [UInt16] = []
            for g in s.split(separator: ":", omittingEmptySubsequences: false) {
                guard (1...4).contains(g.count), let v = UInt16(g, radix: 16) else { return nil }
                out.append(v)
            }
            return out
        }
        let halves = text.split(separator: "::", omittingEmptySubsequences: false)
        var words: [UInt16]
        switch halves.count {
        case 1:
            guard let all = groups(text), all.count == 8 else { return nil }
            words = all
        case 2:
            guard let head = groups(halves[0]), let tail = groups(halves[1]),
                head.count + tail.count <= 7
            else { return nil }
            words = head + [UInt16](repeating: 0, count: 8 - head.count - tail.count) + tail
        default:
            return nil
        }
        return words.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
    }
}

/// Why a `listen:` value is not an address. Threading: a value. Any thread.
public enum ListenAddressError: Error, Sendable, Equatable, CustomStringConvertible {
    case form(String)
    case port(String)
    case address(String)

    public var description: String {
        switch self {
        case .form(let text):
            "expected \"ADDRESS:PORT\" (\"127.0.0.1:4001\", or \"[::1]:4001\" for IPv6), got \"\(text)\""
        case .port(let text): "expected a port 1…65535, got \"\(text)\""
        case .address(let text): "expected an IPv4 address, or an IPv6 address in brackets, got \"\(text)\""
        }
    }
}
