import AccessoryTestSupport
import ControlProtocol
import Glibc
import SystemCalls

/// A blocking-style test client over a non-blocking Unix socket: every wait is bounded.
///
/// Threading: one thread (the test's).
final class TestClient {
    private var fd: OwnedFD?
    /// The descriptor number (valid until ``close()``).
    let rawFD: CInt
    private var received: [UInt8] = []
    private(set) var sawEndOfFile = false

    init(path: String) throws {
        let socket = try Socket.unixStream()
        _ = try Socket.connect(socket.rawValue, .path(path))
        rawFD = socket.rawValue
        fd = consume socket
    }

    /// Writes all of `bytes`, waiting (bounded) while the socket is full. Returns false if the
    /// peer has gone or the time ran out.
    @discardableResult
    func send(bytes: [UInt8], seconds: Double = 5) -> Bool {
        var offset = 0
        let deadline = MonotonicNow.seconds() + seconds
        while offset < bytes.count {
            guard MonotonicNow.seconds() < deadline else { return false }
            let result = bytes[offset...].withUnsafeBytes { buffer in
                Result { () throws(SyscallError) in try Socket.send(rawFD, from: buffer) }
            }
            switch result {
            case .success(.processed(let n)): offset += n
            // The kernel's socket buffer is full until the server reads: poll for that (bounded by
            // the deadline above).
            case .success(.wouldBlock): usleep(500)
            case .failure: return false
            }
        }
        return true
    }

    @discardableResult
    func send(_ text: String) -> Bool { send(bytes: Array(text.utf8)) }

    /// The next line (without `\n`), or nil on timeout or end of file.
    func readLine(seconds: Double = 5) -> String? {
        var line: String?
        Wait.until(seconds: seconds) {
            if let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
                line = String(decoding: received[..<newline], as: UTF8.self)
                received.removeSubrange(...newline)
                return true
            }
            return !pump()
        }
        return line
    }

    /// The next line, decoded.
    func readMessage(seconds: Double = 5) -> ServerMessage? {
        guard let line = readLine(seconds: seconds) else { return nil }
        return try? ServerMessage.decode(Array(line.utf8))
    }

    /// The next response (notifications before it are skipped).
    func readResponse(seconds: Double = 5) -> Response? {
        let deadline = MonotonicNow.seconds() + seconds
        while MonotonicNow.seconds() < deadline {
            switch readMessage(seconds: max(0, deadline - MonotonicNow.seconds())) {
            case .response(let response)?: return response
            case .notification?: continue
            case nil: return nil
            }
        }
        return nil
    }

    /// Sends one request line and returns its response.
    func call(_ json: String, seconds: Double = 5) -> Response? {
        guard send(json + "\n") else { return nil }
        return readResponse(seconds: seconds)
    }

    /// Waits until the server closes the connection (end of file or reset), discarding data.
    func waitForClose(seconds: Double = 5) -> Bool {
        Wait.until(seconds: seconds) {
            received.removeAll(keepingCapacity: true)
            return !pump()
        }
    }

    /// Reads what is available; returns false once the connection is finished.
    private func pump() -> Bool {
        if sawEndOfFile { return false }
        do {
            guard let chunk = try FileIO.read(rawFD, max: 65_536) else { return true }
            if chunk.isEmpty {
                sawEndOfFile = true
                return false
            }
            received += chunk
            return true
        } catch {
            sawEndOfFile = true
            return false
        }
    }

    func shutdownWriting() { try? Socket.shutdownWriting(rawFD) }

    func close() { fd.take()?.close() }
}

extension Response {
    /// The error code, if it failed.
    var errorCode: Int? { error?.code }
}
