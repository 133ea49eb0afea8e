import Glibc

/// The soak's command line, and the fixed parameters of its traffic.
///
/// Threading: a value. Any thread.
struct Options {
    var seconds = 300
    var clients = 64
    var accessories = 8
    var seed: UInt64 = {
        var system = SystemRandomNumberGenerator()
        return system.next() % 1_000_000_000
    }()
    /// The folder with `accessoryd` (default: the folder of this executable).
    var products: String?
    /// The daemon executable itself (e.g. a sanitizer build); wins over `products`.
    var daemon: String?
    /// Time between two unplugs (of a random plugged accessory), and how long one stays out.
    var unplugEveryMs = 150...400
    var absentMs = 0...300
    /// Time between two client kills.
    var killEveryMs = 100...400
    /// Unmeasured traffic before the baseline is taken (default: a tenth of the run, 2...10 s).
    var warmupSeconds: Int?
    /// The resident memory may end this much above the baseline: the larger of the two.
    var rssToleranceMiB = 4
    var rssTolerancePercent = 10
    /// Off for AddressSanitizer builds: their quarantine keeps freed memory resident (256 MB by
    /// default), so VmRSS measures the quarantine, not the daemon; LeakSanitizer checks at exit.
    var checksRSS = true
    /// Keep the folder (config, log, links) for a look afterwards.
    var keep = false

    // Traffic shape (not flags).
    let actEveryMs = 2...25
    let maxOutstanding = 4
    let slowFraction = 0.03
    let slowTimeoutMs = 100
    /// nil (the default): the accessories use the daemon's default resync settings, which must
    /// discard the slow echoes without tuning. Set (`--settle-ms`): a settle-only resync with
    /// this quiet time and no late window; lower than the slow echo's lateness past the timeout
    /// (0 turns the resync after a timeout off), it lets late answers through: a way to see the
    /// checks catch them.
    var settleMs: Int?
    let leaseMs = 50...300
    let spontaneousEveryMs = 200...800
    /// A slow line's echo comes 150 ms after its timeout, well inside the default late window
    /// that follows (1 s: the timeout, at least 1 s), so a starved soak or daemon has margin.
    var slowDelay: Duration { .milliseconds(slowTimeoutMs + 150) }

    var warmup: Int { warmupSeconds ?? min(10, max(2, seconds / 10)) }

    static let usage = """
        usage: soak [--seconds N] [--clients N] [--accessories N] [--seed S] [--warmup-seconds N]
                    [--products DIR | --daemon PATH] [--unplug-every-ms A-B] [--absent-ms A-B]
                    [--kill-every-ms A-B] [--rss-tolerance-mib N] [--rss-tolerance-percent N]
                    [--no-rss-check] [--settle-ms N] [--keep]
          Runs accessoryd on echo accessories (ptys the soak serves itself) with many clients doing
          random transact/write/read/subscribe/lock/cancel while clients are killed and accessories
          unplugged and replugged; checks the invariants and prints the totals. Exit status 1 when
          a violation was seen or the daemon died, 2 when the soak could not run.
          --seconds N              measured run (default 300)
          --clients N              concurrent client connections (default 64)
          --accessories N          echo accessories (default 8)
          --seed S                 random seed (default: random; printed)
          --warmup-seconds N       traffic before the baseline (default: seconds/10 within 2...10)
          --products DIR           where accessoryd is (default: next to soak)
          --daemon PATH            the accessoryd executable (e.g. .build-tsan/debug/accessoryd)
          --unplug-every-ms A-B    time between unplugs (default 150-400)
          --absent-ms A-B          how long an unplugged accessory stays out (default 0-300)
          --kill-every-ms A-B      time between client kills (default 100-400)
          --rss-tolerance-mib N    allowed VmRSS growth over the baseline, the larger of this ...
          --rss-tolerance-percent N  ... and this share of the baseline (defaults 4 MiB, 10 %)
          --no-rss-check           report VmRSS, do not check it (AddressSanitizer builds)
          --settle-ms N            a settle-only resync (late_ms: 0) with this settle_ms instead
                                   of the daemon's default resync settings (below 150 the
                                   late answers of slow transacts escape: a test of the checks)
          --keep                   keep the run's folder (config, daemon log)
        """

    static func parse(_ arguments: [String]) throws -> Options {
        var options = Options()
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let text = rest.popFirst() else { throw SoakError("\(flag) needs a value\n\(usage)") }
            return text
        }
        func number(_ flag: String) throws -> Int {
            guard let n = Int(try value(flag)), n >= 0 else { throw SoakError("\(flag) needs a number\n\(usage)") }
            return n
        }
        func range(_ flag: String) throws -> ClosedRange<Int> {
            let parts = try value(flag).split(separator: "-").compactMap { Int($0) }
            guard parts.count == 2, parts[0] >= 0, parts[0] <= parts[1] else {
                throw SoakError("\(flag) needs A-B with 0 <= A <= B\n\(usage)")
            }
            return parts[0]...parts[1]
        }
        while let flag = rest.popFirst() {
            switch flag {
            case "--seconds": options.seconds = try number(flag)
            case "--clients": options.clients = max(1, try number(flag))
            case "--accessories": options.accessories = max(1, try number(flag))
            case "--seed": options.seed = UInt64(try number(flag))
            case "--warmup-seconds": options.warmupSeconds = try number(flag)
            case "--products": options.products = try value(flag)
            case "--daemon": options.daemon = try value(flag)
            case "--unplug-every-ms": options.unplugEveryMs = try range(flag)
            case "--absent-ms": options.absentMs = try range(flag)
            case "--kill-every-ms": options.killEveryMs = try range(flag)
            case "--rss-tolerance-mib": options.rssToleranceMiB = try number(flag)
            case "--rss-tolerance-percent": options.rssTolerancePercent = try number(flag)
            case "--settle-ms": options.settleMs = try number(flag)
            case "--no-rss-check": options.checksRSS = false
            case "--keep": options.keep = true
            case "-h", "--help":
                print(usage)
                exit(0)
            default: throw SoakError("unknown argument \(flag)\n\(usage)")
            }
        }
        return options
    }
}
