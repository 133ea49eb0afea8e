import Glibc

/// The benchmark's command line (see ``usage``).
///
/// Threading: a value. Main thread.
struct Options {
    /// Sequential requests per target and request size, split evenly over the rounds.
    var requests = 20_000
    var rounds = 5
    /// Sequential requests for ser2net with its defaults (every reply waits for chardelay).
    var slowRequests = 2_000
    /// Unrecorded requests per target before the first round.
    var warmup = 500
    /// Concurrent-client counts, and the requests done (in total, over the clients) at each.
    var clients = [1, 8, 64]
    var concurrentRequests = 6_400
    /// Bytes streamed per target.
    var streamBytes = 8 << 20
    /// Idle accessories, and for how long their daemon's CPU time is watched.
    var idleAccessories = 256
    var idleSeconds = 10.0
    var replugs = 20
    /// Seconds of transacts and ticks timed quiet, and again under a flood of long lines (0 skips it).
    var interferenceSeconds = 2.0
    /// The pty views section (exclusive view, shared view, monitor views); `viewsOnly` runs it alone.
    var views = true
    var viewsOnly = false
    /// The targets to run (the default: all of them, in this order).
    var targets = TargetKind.allCases
    /// The folder with `accessoryd`, `accessory-sim` and `echo-accessory` (default: the folder of this executable).
    var products: String?
    /// The folder with another build's `accessoryd` (e.g. an earlier commit's), run as the
    /// `accessoryd-baseline` target beside this build's.
    var baseline: String?
    /// Where the Markdown table goes, besides standard output.
    var output = "bench/results/latest.md"

    static let usage = """
        usage: compare-bench [options]
          accessoryd beside a raw relay: the same echo accessory (echo-accessory, on a pty) reached
          directly, through socat, through ser2net and through accessoryd, interleaved in one run.
          --requests N        sequential requests per target and size (default 20000)
          --rounds R          rounds; the targets rotate which goes first (default 5)
          --slow-requests N   sequential requests for ser2net-default, whose chardelay adds
                              1 ms or more to each (default 2000)
          --warmup N          unrecorded requests per target first (default 500)
          --clients LIST      concurrent clients on one accessory, e.g. 1,8,64 (default)
          --concurrent-requests N  requests per target at each client count (default 6400)
          --stream-mib N      MiB streamed per target (default 8)
          --idle N            idle simulated accessories for the idle test (default 256; 0 skips it)
          --idle-seconds S    how long the idle daemon is watched (default 10)
          --replugs N         replug-to-ready samples (default 20; 0 skips it)
          --interference S    seconds of accessoryd ticks and transacts timed quiet, then again
                              while 8 clients send 60 KB lines (default 2; 0 skips it)
          --targets LIST      any of direct,socat,ser2net,ser2net-default,accessoryd,
                              accessoryd-own,accessoryd-traced, accessoryd-baseline,
                              ser2net-tcp,ser2net-rfc2217,accessoryd-tcp,accessoryd-rfc2217
                              (default: all; the baseline only with --baseline; the TCP
                              listeners take no concurrent clients)
          --no-views          skip the pty views section
          --views-only        run only the pty views section: an exclusive view streaming beside
                              attach and socat's PTY relay, a shared view's 16 B round trip beside
                              transact, 16 monitor views with no reader (--idle-seconds long)
          --products DIR      where accessoryd, accessory-sim and echo-accessory are
                              (default: next to compare-bench)
          --baseline DIR      also run DIR/accessoryd (another build, e.g. an earlier commit's)
                              as the target accessoryd-baseline: before/after in one run
          --output FILE       where the Markdown table is written (default bench/results/latest.md)
        """

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        var explicitTargets = false
        func text(_ flag: String) throws -> String {
            guard let value = rest.popFirst() else { throw BenchError("\(flag) needs a value\n\(usage)") }
            return value
        }
        func number(_ flag: String) throws -> Int {
            guard let value = Int(try text(flag)), value >= 0 else {
                throw BenchError("\(flag) needs a non-negative integer\n\(usage)")
            }
            return value
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--requests": options.requests = try number(flag)
            case "--rounds": options.rounds = max(1, try number(flag))
            case "--slow-requests": options.slowRequests = max(1, try number(flag))
            case "--warmup": options.warmup = try number(flag)
            case "--clients":
                options.clients = try text(flag).split(separator: ",").map {
                    guard let k = Int($0), k > 0 else { throw BenchError("--clients takes positive integers") }
                    return k
                }
            case "--concurrent-requests": options.concurrentRequests = try number(flag)
            case "--stream-mib": options.streamBytes = try number(flag) << 20
            case "--idle": options.idleAccessories = try number(flag)
            case "--idle-seconds":
                guard let seconds = Double(try text(flag)), seconds > 0 else {
                    throw BenchError("--idle-seconds needs a positive number")
                }
                options.idleSeconds = seconds
            case "--replugs": options.replugs = try number(flag)
            case "--interference":
                guard let seconds = Double(try text(flag)), seconds >= 0 else {
                    throw BenchError("--interference needs a number of seconds")
                }
                options.interferenceSeconds = seconds
            case "--targets":
                explicitTargets = true
                options.targets = try text(flag).split(separator: ",").map {
                    guard let kind = TargetKind(rawValue: String($0)) else {
                        throw BenchError("unknown target \($0)\n\(usage)")
                    }
                    return kind
                }
            case "--no-views": options.views = false
            case "--views-only": options.viewsOnly = true
            case "--products": options.products = try text(flag)
            case "--baseline": options.baseline = try text(flag)
            case "--output": options.output = try text(flag)
            case "-h", "--help":
                print(usage)
                exit(0)
            default: throw BenchError("unknown argument \(flag)\n\(usage)")
            }
        }
        if min(options.requests, options.slowRequests) < options.rounds {
            throw BenchError("--requests and --slow-requests must be at least --rounds")
        }
        if !options.targets.contains(.direct) { options.targets.insert(.direct, at: 0) }
        if options.baseline == nil {
            guard !options.targets.contains(.accessorydBaseline) || !explicitTargets else {
                throw BenchError("the accessoryd-baseline target needs --baseline DIR")
            }
            options.targets.removeAll { $0 == .accessorydBaseline }
        } else if !options.targets.contains(.accessorydBaseline) {
            options.targets.append(.accessorydBaseline)
        }
        return options
    }
}
