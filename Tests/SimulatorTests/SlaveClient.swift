import Glibc
import SystemCalls

/// The client's end of a simulated accessory: the pty slave, opened the way the daemon opens a
/// serial port (`O_RDWR|O_NOCTTY|O_NONBLOCK`, raw). Every wait is bounded by a deadline.
///
/// Test thread only (one test owns it).
final class SlaveClient {
    /// How the slave's read side ended, once it did. Any thread (a value).
    enum Ending: Equatable {
        case endOfFile
        case error(Errno)
    }

    let path: String
    private var fd: OwnedFD?
    private let raw: CInt
    private let epoll: OwnedFD
    /// Bytes received and not yet consumed by `read(until:)`.
    private(set) var received: [UInt8] = []
    private(set) var ending: Ending?
    /// Whether epoll reported a hang-up on the slave.
    private(set) var sawHangup = false

    init(path: String) throws {
        self.path = path
        let f = try FileIO.open(path, flags: O_RDWR | O_NOCTTY | O_NONBLOCK)
        try PseudoTerminal.makeRaw(f.rawValue)
        raw = f.rawValue
        fd = .some(f)
        epoll = try Epoll.create()
        try Epoll.control(epoll.rawValue, .add, fd: raw, events: .readable, data: 1)
    }

    deinit { close() }

    /// Closes the slave. Idempotent.
    func close() {
        guard fd != nil else { return }
        try? Epoll.control(epoll.rawValue, .delete, fd: raw, events: [], data: 0)
        fd.take()?.close()
    }

    /// Writes all of `bytes` (waiting out a full pty, boundedly).
    func write(_ bytes: [UInt8], seconds: Double = 5) throws {
        var rest = bytes[...]
        let deadline = Self.now() + seconds
        while !rest.isEmpty {
            switch try FileIO.write(raw, Array(rest)) {
            case .processed(let n): rest = rest.dropFirst(n)
            case .wouldBlock:
                if Self.now() > deadline { throw ClientError.timedOut("write to \(path)") }
                pump(milliseconds: 1)
            }
        }
    }

    func write(_ text: String) throws { try write(Array(text.utf8)) }

    /// One non-blocking write; how many bytes the pty took (0 when full).
    func writeSome(_ bytes: ArraySlice<UInt8>) throws -> Int {
        if case .processed(let n) = try FileIO.write(raw, Array(bytes)) { return n }
        return 0
    }

    /// Reads until `done(received)` holds, then returns and consumes everything received. Throws
    /// after `seconds`, or if the slave ends first.
    @discardableResult
    func read(seconds: Double = 5, until done: ([UInt8]) -> Bool) throws -> [UInt8] {
        let deadline = Self.now() + seconds
        while !done(received) {
            if ending != nil { throw ClientError.ended("\(path): \(ending!) with \(received.count) bytes unmatched") }
            let left = deadline - Self.now()
            if left <= 0 {
                throw ClientError.timedOut("\(path): got \(Self.show(received))")
            }
            pump(milliseconds: Int(left * 1000) + 1)
        }
        defer { received.removeAll() }
        return received
    }

    /// Reads until `count` bytes have arrived.
    func read(count: Int, seconds: Double = 5) throws -> [UInt8] {
        try read(seconds: seconds) { $0.count >= count }
    }

    /// Reads until `text` has arrived (as a suffix), returned as a string.
    func read(through text: String, seconds: Double = 5) throws -> String {
        let tail = Array(text.utf8)
        let bytes = try read(seconds: seconds) { $0.count >= tail.count && Array($0.suffix(tail.count)) == tail }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Collects whatever arrives within `seconds` (for checking that nothing does).
    func drain(seconds: Double) -> [UInt8] {
        let deadline = Self.now() + seconds
        while ending == nil, Self.now() < deadline {
            pump(milliseconds: max(1, Int((deadline - Self.now()) * 1000)))
        }
        defer { received.removeAll() }
        return received
    }

    /// Waits up to `milliseconds` for input and returns (and consumes) whatever has arrived.
    func readAvailable(milliseconds: Int) -> [UInt8] {
        if received.isEmpty { pump(milliseconds: milliseconds) }
        defer { received.removeAll() }
        return received
    }

    /// Waits until the slave's read side ends (end of file or an error), boundedly.
    func waitForEnding(seconds: Double = 5) -> Ending? {
        let deadline = Self.now() + seconds
        while ending == nil, Self.now() < deadline {
            pump(milliseconds: max(1, Int((deadline - Self.now()) * 1000)))
        }
        return ending
    }

    /// Waits up to `milliseconds` for input and reads all of it.
    private func pump(milliseconds: Int) {
        guard fd != nil, ending == nil else { return }
        var bits: [UInt32] = [0]
        var data: [UInt64] = [0]
        let n = bits.withUnsafeMutableBufferPointer { b in
            data.withUnsafeMutableBufferPointer { d in
                (try? Epoll.wait(epoll.rawValue, events: b, data: d, timeoutMilliseconds: CInt(min(milliseconds, 1000))))
                    ?? 0
            }
        }
        guard n > 0 else { return }
        if !Epoll.Events(rawValue: bits[0]).isDisjoint(with: [.hangup, .error]) { sawHangup = true }
        while true {
            do {
                guard let chunk = try FileIO.read(raw, max: 65_536) else { return }
                if chunk.isEmpty {
                    ending = .endOfFile
                    return
                }
                received += chunk
            } catch {
                ending = .error(error.errno)
                return
            }
        }
    }

    static func now() -> Double { Double(MonotonicClock.nowNanoseconds()) / 1e9 }

    static func show(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self).debugDescription
    }
}

/// Why a client wait failed. Any thread (a value).
enum ClientError: Error, CustomStringConvertible {
    case timedOut(String)
    case ended(String)

    var description: String {
        switch self {
        case .timedOut(let m): return "timed out: \(m)"
        case .ended(let m): return "slave ended: \(m)"
        }
    }
}
