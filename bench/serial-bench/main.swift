// serial-bench: streams bytes through SerialPort on a pty to an echo peer and back, and through a
// plain blocking read/write loop on the same kind of pty, and prints a Markdown table.
//
//   swift run -c release serial-bench [--mib 64] [--reps 5] [--window-kib 64] [--chunk-kib 16]
//                                     [--plain-window-kib 16]
//
// The plain loop writes one window and then reads it back: a single blocking thread cannot have
// more in flight than the pty holds (about 20 KiB each way here) without deadlocking against the
// echo. SerialPort never blocks, so it keeps up to --window-kib in flight; the extra column runs
// it with the plain loop's window too. The two-thread pump (a blocking writer and a blocking
// reader) is an upper bound for any single connection.
import Glibc
import SystemCalls

/// Prints a line at once (unbuffered, so progress shows even when piped).
func out(_ line: String) {
    _ = try? FileIO.write(1, Array((line + "\n").utf8))
}

func option(_ name: String, _ fallback: Int) -> Int {
    let args = CommandLine.arguments
    guard let i = args.firstIndex(of: name), i + 1 < args.count, let v = Int(args[i + 1]), v > 0 else {
        return fallback
    }
    return v
}

let mib = option("--mib", 64)
let reps = option("--reps", 5)
let window = option("--window-kib", 64) * 1024
let plainWindow = option("--plain-window-kib", 16) * 1024
let chunk = option("--chunk-kib", 16) * 1024
let total = mib << 20
let pattern = Pattern()

func megabytesPerSecond(_ seconds: Double) -> Double { Double(total) / seconds / 1e6 }
func fmt(_ v: Double, _ digits: Int = 1) -> String {
    let scale = pow(10.0, Double(digits))
    let r = (v * scale).rounded() / scale
    return String(r)
}

out("serial-bench: \(mib) MiB each way per run, echo peer on the pty master, every byte checked")
out(
    "SerialPort: \(chunk / 1024) KiB writes, at most \(window / 1024) KiB in flight; plain loop: write \(plainWindow / 1024) KiB, read it back"
)
out("")
out(
    "| rep | SerialPort MB/s | plain loop MB/s | SerialPort / plain | SerialPort, \(plainWindow / 1024) KiB window MB/s "
        + "| two-thread pump MB/s | main-thread CPU s, SerialPort / plain |"
)
out("|---:|---:|---:|---:|---:|---:|---:|")
var ratios: [Double] = []
var serialRates: [Double] = []
var plainRates: [Double] = []
var sameWindowRates: [Double] = []
var pumpRates: [Double] = []
for rep in 1...reps {
    // Alternate the order so that neither side always runs on a warmer (or busier) machine.
    var s = 0.0
    var p = 0.0
    var sCPU = 0.0
    var pCPU = 0.0
    if rep % 2 == 1 {
        s = try runSerialPort(total: total, window: window, chunkSize: chunk, pattern: pattern)
        sCPU = lastCPUSeconds
        p = try runPlainLoop(total: total, window: plainWindow, pattern: pattern)
        pCPU = lastCPUSeconds
    } else {
        p = try runPlainLoop(total: total, window: plainWindow, pattern: pattern)
        pCPU = lastCPUSeconds
        s = try runSerialPort(total: total, window: window, chunkSize: chunk, pattern: pattern)
        sCPU = lastCPUSeconds
    }
    let w = try runSerialPort(total: total, window: plainWindow, chunkSize: plainWindow, pattern: pattern)
    let t = try runTwoThreadPump(total: total, chunkSize: chunk, pattern: pattern)
    let (sr, pr, wr, tr) = (megabytesPerSecond(s), megabytesPerSecond(p), megabytesPerSecond(w), megabytesPerSecond(t))
    serialRates.append(sr)
    plainRates.append(pr)
    sameWindowRates.append(wr)
    pumpRates.append(tr)
    ratios.append(sr / pr)
    out(
        "| \(rep) | \(fmt(sr)) | \(fmt(pr)) | \(fmt(sr / pr * 100))% | \(fmt(wr)) | \(fmt(tr)) | \(fmt(sCPU, 2)) / \(fmt(pCPU, 2)) |"
    )
}
func median(_ v: [Double]) -> Double {
    let s = v.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}
let medians = [serialRates, plainRates].map(median)
out(
    "| median | \(fmt(medians[0])) | \(fmt(medians[1])) | \(fmt(median(ratios) * 100))% "
        + "| \(fmt(median(sameWindowRates))) | \(fmt(median(pumpRates))) | |"
)
