import Glibc
import SystemCalls

/// An upper bound, for context: blocking writes on one thread and blocking reads on another,
/// so the pty never waits for a round trip. Returns seconds.
func runTwoThreadPump(total: Int, chunkSize: Int, pattern: Pattern) throws -> Double {
    let pty = try PseudoTerminal.open()
    let peer = try EchoPeer(masterFD: pty.master.rawValue)
    let slave = try FileIO.open(pty.slavePath, flags: FileIO.OpenFlag.readWrite | FileIO.OpenFlag.noControllingTerminal)
    try PseudoTerminal.makeRaw(slave.rawValue)
    let writer = Writer(fd: slave.rawValue, total: total, chunkSize: chunkSize, pattern: pattern)
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    defer { buffer.deallocate() }

    let start = MonotonicClock.nowNanoseconds()
    writer.start()
    var received = 0
    while received < total {
        let n = read(slave.rawValue, buffer, 64 * 1024)
        if n < 0 && errno == EINTR { continue }
        precondition(n > 0, "read: \(n) \(errno)")
        precondition(pattern.matches(UnsafeRawBufferPointer(start: buffer, count: n), at: received), "corrupt echo")
        received += n
    }
    let seconds = Double(MonotonicClock.nowNanoseconds() - start) / 1e9
    writer.join()
    slave.close()
    peer.join()
    pty.master.close()
    return seconds
}

/// The writing thread of ``runTwoThreadPump``.
private final class Writer: @unchecked Sendable {  // @unchecked: only the creator touches `thread`.
    let fd: CInt
    let total: Int
    let chunkSize: Int
    let pattern: Pattern
    private var thread = pthread_t()

    init(fd: CInt, total: Int, chunkSize: Int, pattern: Pattern) {
        self.fd = fd
        self.total = total
        self.chunkSize = chunkSize
        self.pattern = pattern
    }

    func start() {
        let rc = pthread_create(
            &thread,
            nil,
            { raw in
                Unmanaged<Writer>.fromOpaque(raw!).takeRetainedValue().run()
                return nil
            },
            Unmanaged.passRetained(self).toOpaque()
        )
        precondition(rc == 0)
    }

    private func run() {
        var sent = 0
        while sent < total {
            let chunk = pattern.chunk(at: sent, count: Swift.min(chunkSize, total - sent))
            var done = 0
            while done < chunk.count {
                let w = chunk.withUnsafeBytes { write(fd, $0.baseAddress! + done, chunk.count - done) }
                if w < 0 && errno == EINTR { continue }
                precondition(w > 0, "write: \(errno)")
                done += w
            }
            sent += chunk.count
        }
    }

    func join() { pthread_join(thread, nil) }
}
