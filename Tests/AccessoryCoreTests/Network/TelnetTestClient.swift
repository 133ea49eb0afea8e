import AccessorySimulator
import AccessoryTestSupport
import Glibc
import SystemCalls

@testable import AccessoryCore

/// A COM-PORT-OPTION client for the listener tests: sends commands, and collects what the server
/// sends to look for its answers and notifications. Every wait is bounded.
///
/// Threading: the test's thread.
final class TelnetTestClient {
    private static let iac: UInt8 = 255
    private let socket: OwnedFD
    /// What the server sent so far (its negotiation included).
    var bytes: [UInt8] = []

    /// A daemon (in-process) with one simulated accessory `echo` behind an rfc2217 listener, and
    /// the listener's port; `limits` are lines of the `limits:` section.
    static func harness(limits: [String] = []) throws -> (CoreHarness, UInt16) {
        let probe = try InetSocket.listening(on: InetEndpoint(address: [127, 0, 0, 1], port: 0))
        let port = try InetSocket.localEnd(probe.rawValue).port
        probe.close()
        let section = limits.isEmpty ? "" : "limits:\n" + limits.map { "  \($0)\n" }.joined()
        let yaml =
            section + """
                accessories:
                  - name: echo
                    path: {sim:echo}
                    framing: {type: line, delimiter: "\\n"}
                    network: [{listen: "127.0.0.1:\(port)", protocol: rfc2217}]
                """
        return (try CoreHarness(sims: ["echo": SimulatorConfiguration(name: "echo")], yaml: yaml), port)
    }

    init(port: UInt16) throws {
        socket = try InetSocket.connect(to: InetEndpoint(address: [127, 0, 0, 1], port: port))
    }

    /// `IAC SB COM-PORT (code + 100) value IAC SE`: a server's one-byte answer or notification.
    static func reply(_ code: UInt8, _ value: UInt8) -> [UInt8] { [iac, 250, 44, code + 100, value, iac, 240] }

    /// Sends `IAC SB COM-PORT code [value] IAC SE`.
    func send(_ code: UInt8, _ value: UInt8? = nil) throws {
        try FileIO.writeAll(socket.rawValue, [Self.iac, 250, 44, code] + (value.map { [$0] } ?? []) + [Self.iac, 240])
    }

    /// Sends `bytes` as they are.
    func sendRaw(_ bytes: [UInt8]) throws { try FileIO.writeAll(socket.rawValue, bytes) }

    /// Whether the server closes the connection within five seconds (what it sent before is kept
    /// in ``bytes``).
    func closedByServer() -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while ContinuousClock.now < deadline {
            var entry = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
            guard Glibc.poll(&entry, 1, 100) == 1 else { continue }
            let n = Glibc.read(socket.rawValue, &buffer, buffer.count)
            if n <= 0 { return true }
            bytes += buffer[..<n]
        }
        return false
    }

    /// Sends a line of data for the device, and waits (five seconds at most) for the echo
    /// accessory to send it back: then the client's session runs.
    func echo(_ line: String) throws -> Bool {
        try FileIO.writeAll(socket.rawValue, Array(line.utf8))
        return waitFor(sequence: Array(line.utf8))
    }

    /// Reads until the server's `reply(code, value)` has come (true), or five seconds passed.
    /// The bytes up to and including it are dropped, so the next wait looks only after it.
    func waitFor(_ code: UInt8, _ value: UInt8) -> Bool { waitFor(sequence: Self.reply(code, value)) }

    /// Reads until `sequence` has come (true), or five seconds passed; drops the bytes up to and
    /// including it.
    func waitFor(sequence: [UInt8]) -> Bool {
        let deadline = ContinuousClock.now + .seconds(5)
        while true {
            if let end = end(of: sequence) {
                bytes.removeFirst(end)
                return true
            }
            guard ContinuousClock.now < deadline else { return false }
            readSome(timeoutMs: 100)
        }
    }

    /// Reads for `seconds`.
    func listen(seconds: Double) {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline { readSome(timeoutMs: 50) }
    }

    /// Whether what was read holds a COM-PORT subnegotiation with the server's `code` (+100).
    func heard(code: UInt8) -> Bool { end(of: [Self.iac, 250, 44, code + 100]) != nil }

    private func end(of sequence: [UInt8]) -> Int? {
        guard bytes.count >= sequence.count else { return nil }
        for start in 0...(bytes.count - sequence.count)
        where bytes[start..<(start + sequence.count)].elementsEqual(sequence) {
            return start + sequence.count
        }
        return nil
    }

    private func readSome(timeoutMs: CInt) {
        var entry = pollfd(fd: socket.rawValue, events: Int16(POLLIN), revents: 0)
        guard Glibc.poll(&entry, 1, timeoutMs) == 1 else { return }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let n = Glibc.read(socket.rawValue, &buffer, buffer.count)
        if n > 0 { bytes += buffer[..<n] }
    }
}
