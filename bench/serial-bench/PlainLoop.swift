import Glibc
import SystemCalls

/// The baseline: a blocking read/write loop on a raw pty slave, no event loop. It writes one
/// window of bytes, then reads until that window has come back, and repeats (a single thread
/// cannot write more before reading without risking a deadlock with the echo). Returns seconds.
func runPlainLoop(total: Int, window: Int, pattern: Pattern) throws -> Double {
    let pty = try PseudoTerminal.open()
    let peer = try EchoPeer(masterFD: pty.master.rawValue)
    let slave = try FileIO.open(pty.slavePath, flags: FileIO.OpenFlag.readWrite | FileIO.OpenFlag.noControllingTerminal)
    try PseudoTerminal.makeRaw(slave.rawValue)
    let fd = slave.rawValue
    let buffer = UnsafeMutableRawPointer.allocate(byteCount: 64 * 1024, alignment: 16)
    defer { buffer.deallocate() }

    let start = MonotonicClock.nowNanoseconds()
    let cpuStart = threadCPUSeconds()
    var sent = 0
    var received = 0
    while received < total {
        let chunk = pattern.chunk(at: sent, count: Swift.min(window, total - sent))
        var done = 0
        while done < chunk.count {
            let w = chunk.withUnsafeBytes { write(fd, $0.baseAddress! + done, chunk.count - done) }
            if w < 0 && errno == EINTR { continue }
            precondition(w > 0, "write: \(errno)")
            done += w
        }
        sent += chunk.count
        while received < sent {
            let n = read(fd, buffer, Swift.min(64 * 1024, sent - received))
            if n < 0 && errno == EINTR { continue }
            precondition(n > 0, "read: \(n) \(errno)")
            precondition(pattern.matches(UnsafeRawBufferPointer(start: buffer, count: n), at: received), "corrupt echo")
            received += n
        }
    }
    let seconds = Double(MonotonicClock.nowNanoseconds() - start) / 1e9
    lastCPUSeconds = threadCPUSeconds() - cpuStart
    slave.close()
    peer.join()
    pty.master.close()
    return seconds
}
