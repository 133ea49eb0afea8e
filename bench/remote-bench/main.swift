import AccessoryClient
import AccessoryTestSupport
import Glibc
import SystemCalls

// remote-bench: what the SSH hop of `accessoryctl --host ssh://…` costs. One accessoryd (a
// simulated echo accessory) and a throwaway sshd on 127.0.0.1; the same `transact` request,
// one at a time, over each path:
//   local socket        the daemon's Unix socket
//   dial-stdio          accessoryctl dial-stdio as a child on a socket pair (the relay alone)
//   ssh                 ssh → sshd → accessoryctl dial-stdio (one ssh connection, reused)
//   ssh + ControlMaster the same through a shared master connection
// and, for a whole command, `accessoryctl [--host …] transact echo ping` run from start to end.
// Usage: remote-bench [--requests N] [--commands N] [--products DIR]

/// Command-line options. A value. Any thread.
struct Options {
    var requests = 2_000
    var commands = 20
    var products: String?

    init(_ arguments: [String]) {
        var rest = arguments[...]
        while let flag = rest.popFirst() {
            let value = rest.popFirst()
            switch (flag, value) {
            case ("--requests", let v?): requests = max(10, Int(v) ?? requests)
            case ("--commands", let v?): commands = max(1, Int(v) ?? commands)
            case ("--products", let v?): products = v
            default:
                print("usage: remote-bench [--requests N] [--commands N] [--products DIR]")
                exit(2)
            }
        }
    }
}

func fail(_ message: String) -> Never {
    print("remote-bench: \(message)")
    exit(1)
}

/// Nanoseconds of monotonic time.
func now() -> UInt64 { MonotonicClock.nowNanoseconds() }

/// The percentile `p` (0...1) of sorted samples, in microseconds.
func percentile(_ sorted: [UInt64], _ p: Double) -> Double {
    guard !sorted.isEmpty else { return 0 }
    return Double(sorted[min(sorted.count - 1, Int(Double(sorted.count - 1) * p))]) / 1_000
}

/// Sends one request line at a time on a blocking descriptor and waits for its answer line.
func transactLatencies(fd: CInt, count: Int) -> [UInt64] {
    try? FileIO.setNonBlocking(fd, false)
    var samples: [UInt64] = []
    samples.reserveCapacity(count)
    var buffer = [UInt8](repeating: 0, count: 65_536)
    for id in 0..<(count + 50) {
        let line =
            Array(
                #"{"jsonrpc":"2.0","id":\#(id),"method":"transact","params":{"device":"echo","data":"ping"}}"#.utf8
            ) + [0x0A]
        let start = now()
        do {
            try FileIO.writeAll(fd, line)
            var seen = 0
            scan: while true {
                let n: Int = try buffer.withUnsafeMutableBytes { bytes in
                    guard case .processed(let n) = try FileIO.read(fd, into: bytes) else { return -1 }
                    return n
                }
                if n == 0 { fail("the connection ended (request \(id))") }
                if n < 0 { continue }
                seen += n
                if buffer[..<n].contains(0x0A) { break scan }
            }
            guard seen > 0 else { fail("no answer") }
        } catch {
            fail("request \(id): \(error)")
        }
        if id >= 50 { samples.append(now() - start) }  // the first 50 warm the path up
    }
    return samples.sorted()
}

/// Runs `arguments` to its end `count` times; the wall time of each run.
func commandTimes(_ program: String, _ arguments: [String], count: Int) -> [UInt64] {
    var samples: [UInt64] = []
    for _ in 0..<count {
        let start = now()
        guard let devNull = try? FileIO.open("/dev/null", flags: O_RDWR),
            let pid = try? ChildProcess.launch(
                program,
                arguments: arguments,
                standardInput: devNull.rawValue,
                standardOutput: devNull.rawValue,
                standardError: devNull.rawValue
            )
        else { fail("cannot run \(program)") }
        devNull.close()
        guard case .exited(0)? = try? ChildProcess.wait(pid, block: true) else {
            fail("\(program) \(arguments.joined(separator: " ")) failed")
        }
        samples.append(now() - start)
    }
    return samples.sorted()
}

let options = Options(Array(CommandLine.arguments.dropFirst()))
let products: String = {
    if let given = options.products { return given }
    let me = (try? FileIO.readLink("/proc/self/exe")) ?? CommandLine.arguments[0]
    return String(me[..<(me.lastIndex(of: "/") ?? me.endIndex)])
}()
let ctl = products + "/accessoryctl"
for name in ["accessoryd", "accessory-sim", "accessoryctl"] where access(products + "/" + name, X_OK) != 0 {
    fail("\(products)/\(name) is not built (make remote-bench builds them)")
}
if let reason = SSHServer.unavailableReason { fail(reason) }

// The daemon: one simulated echo accessory, its socket in a private folder.
guard let folder = try? FileIO.makeTemporaryDirectory(prefix: "/tmp/remote-bench-") else { fail("no temp folder") }
let socketPath = folder + "/accessoryd.sock"
let config = """
    socket: {path: \(socketPath), mode: "0600"}
    accessories:
      - {name: echo, simulate: {personality: echo}, framing: {type: line, delimiter: "\\n"}}

    """
try? FileIO.writeFile(folder + "/accessoryd.yaml", config)
guard let daemonLog = try? FileIO.open(folder + "/accessoryd.log", flags: O_WRONLY | O_CREAT, mode: 0o600),
    let daemon = try? ChildProcess.launch(
        products + "/accessoryd",
        arguments: ["--config", folder + "/accessoryd.yaml", "--runtime-dir", folder],
        standardOutput: daemonLog.rawValue,
        standardError: daemonLog.rawValue
    )
else { fail("cannot start accessoryd") }
daemonLog.close()
var sshd: SSHServer?
@MainActor func cleanUp() {
    try? ChildProcess.signal(daemon, SIGTERM)
    _ = try? ChildProcess.wait(daemon, block: true)
    if let sshd {
        sshd.stopControlMaster(config: (try? sshd.clientConfig(controlMaster: true)) ?? "")
        sshd.stop()
    }
    for name in (try? FileIO.listDirectory(folder)) ?? [] { unlink(folder + "/" + name) }
    rmdir(folder)
}
// Ready: a transact answers.
let readyBy = now() + 20_000_000_000
while true {
    if let fd = try? Socket.connectedUnixStream(to: .path(socketPath)) {
        let answer = transactLatencies(fd: fd.rawValue, count: 10)
        fd.close()
        if !answer.isEmpty { break }
    }
    if now() > readyBy {
        cleanUp()
        fail("accessoryd did not answer within 20 s: \(FileIO.readText(folder + "/accessoryd.log"))")
    }
    usleep(50_000)
}
do {
    sshd = try SSHServer()
} catch {
    cleanUp()
    fail("\(error)")
}
guard let server = sshd, let plainConfig = try? server.clientConfig(),
    let masterConfig = try? server.clientConfig(controlMaster: true),
    let destination = try? SSHDestination(url: server.url),
    let command = try? RemoteCommand("\(ctl) --socket \(socketPath)")
else {
    cleanUp()
    fail("cannot set up ssh")
}

/// Opens the path, measures, closes it.
@MainActor func measure(_ name: String, _ open: () async throws -> (CInt, () -> Void)) async -> (String, [UInt64]) {
    do {
        let (fd, close) = try await open()
        let samples = transactLatencies(fd: fd, count: options.requests)
        close()
        return (name, samples)
    } catch {
        cleanUp()
        fail("\(name): \(error)")
    }
}

var rows: [(String, [UInt64])] = []
rows.append(
    await measure("local socket") {
        let fd = try Socket.connectedUnixStream(to: .path(socketPath))
        let raw = fd.release()
        return (raw, { OwnedFD(adopting: raw).close() })
    }
)
rows.append(
    await measure("dial-stdio relay (no ssh)") {
        let pair = try Socket.socketPair()
        let ours = pair.first.release()
        let theirs = pair.second
        try FileIO.setNonBlocking(theirs.rawValue, false)
        let pid = try ChildProcess.launchPiped(
            ctl,
            arguments: ["--socket", socketPath, "dial-stdio"],
            standardInput: theirs.rawValue,
            standardOutput: theirs.rawValue,
            standardError: 2
        )
        theirs.close()
        return (
            ours,
            {
                OwnedFD(adopting: ours).close()
                _ = try? ChildProcess.wait(pid, block: true)
            }
        )
    }
)
for (name, config) in [("ssh (one connection)", plainConfig), ("ssh + ControlMaster", masterConfig)] {
    rows.append(
        await measure(name) {
            let channel = try await AccessoryConnection.connectRaw(
                to: .ssh(destination, SSHSettings(remoteCommand: command, configFile: config))
            )
            let tunnel = channel.tunnel
            let raw = channel.socket.release()
            return (
                raw,
                {
                    OwnedFD(adopting: raw).close()
                    tunnel?.release()
                }
            )
        }
    )
}

// Whole commands: a fresh accessoryctl (and ssh) per request.
let remoteArguments = ["--remote-command", "\(ctl) --socket \(socketPath)", "--host", server.url]
let commandRows: [(String, [UInt64])] = [
    (
        "accessoryctl transact (local)",
        commandTimes(ctl, ["--socket", socketPath, "transact", "echo", "ping"], count: options.commands)
    ),
    (
        "accessoryctl --host transact (ssh)",
        commandTimes(
            ctl,
            remoteArguments + ["--ssh-config", plainConfig, "transact", "echo", "ping"],
            count: options.commands
        )
    ),
    (
        "accessoryctl --host transact (ssh + ControlMaster)",
        commandTimes(
            ctl,
            remoteArguments + ["--ssh-config", masterConfig, "transact", "echo", "ping"],
            count: options.commands
        )
    ),
]
cleanUp()

func format(_ microseconds: Double) -> String {
    microseconds >= 10_000 ? "\(Int((microseconds / 1_000).rounded())) ms" : "\(Int(microseconds.rounded())) µs"
}
print(
    "remote-bench: transact on an open connection, \(options.requests) requests one at a time after 50 warm-up ones\n"
)
print("| path | p50 | p90 | p99 |")
print("|---|---:|---:|---:|")
for (name, samples) in rows {
    print(
        "| \(name) | \(format(percentile(samples, 0.5))) | \(format(percentile(samples, 0.9))) | \(format(percentile(samples, 0.99))) |"
    )
}
print("\nremote-bench: a whole command, from start to exit, \(options.commands) runs each\n")
print("| command | p50 | p90 | max |")
print("|---|---:|---:|---:|")
for (name, samples) in commandRows {
    print(
        "| \(name) | \(format(percentile(samples, 0.5))) | \(format(percentile(samples, 0.9))) | \(format(percentile(samples, 1))) |"
    )
}
