import IOLoop
import SystemCalls
import Transports

/// The measured path: SerialPort on a pty slave, driven by an IOLoop on this thread. Chunks of
/// `chunkSize` are written whenever fewer than `window` bytes are in flight (written but not yet
/// echoed); every byte that comes back is checked. Returns seconds.
func runSerialPort(total: Int, window: Int, chunkSize: Int, pattern: Pattern) throws -> Double {
    let loop = try IOLoop.forCurrentThread(name: "serial-bench")
    defer { loop.shutdown() }
    let pty = try PseudoTerminal.open()
    let peer = try EchoPeer(masterFD: pty.master.rawValue)
    let port = try SerialPort.open(
        path: pty.slavePath,
        settings: SerialSettings(baudRate: 4_000_000),
        on: loop,
        maxOutboundBytes: window + chunkSize
    )
    var sent = 0
    var received = 0
    var failure: String?

    func pump() {
        while sent < total && sent - received < window {
            let n = Swift.min(chunkSize, total - sent)
            do { try port.channel.write(pattern.chunk(at: sent, count: n)) } catch {
                failure = "write: \(error)"
                return
            }
            sent += n
        }
    }
    port.channel.onBytes = { bytes in
        let ok = pattern.matches(bytes, at: received)
        if !ok { failure = "corrupt echo at \(received)" }
        received += bytes.count
        pump()
    }
    port.channel.onGone = { failure = "device gone: \($0)" }
    let watchdog = loop.scheduleTimer(after: .seconds(120)) {
        failure = "stalled at \(received) bytes"
        loop.stop()
    }

    let start = MonotonicClock.nowNanoseconds()
    let cpuStart = threadCPUSeconds()
    pump()
    loop.run(while: { received < total && failure == nil })
    let seconds = Double(MonotonicClock.nowNanoseconds() - start) / 1e9
    lastCPUSeconds = threadCPUSeconds() - cpuStart
    watchdog.cancel()
    if let failure { fatalError("serial-bench: \(failure)") }
    port.close()
    peer.join()
    pty.master.close()
    return seconds
}
