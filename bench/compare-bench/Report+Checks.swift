/// The issue's numbers, checked against this run's figures (ratios from the same run).
///
/// Threading: main thread.
extension Report {
    func checks() -> [String] {
        var lines: [String] = []
        func check(_ passed: Bool, _ text: String) { lines.append("- [\(passed ? "x" : " ")] " + text) }
        func small(_ kind: TargetKind) -> Samples? { latency.first { $0.kind == kind && $0.size == 16 }?.samples }
        func cpu(_ kind: TargetKind) -> Double? {
            latency.first { $0.kind == kind && $0.size == 16 }?.cpuMicrosecondsPerRequest
        }
        let daemons = [TargetKind.accessoryd, .accessorydOwn].filter { kind in latency.contains { $0.kind == kind } }
        for kind in daemons {
            let name = kind.rawValue
            if let direct = small(.direct), let socat = small(.socat), let daemon = small(kind) {
                let ours = daemon.percentile(0.5) - direct.percentile(0.5)
                let theirs = socat.percentile(0.5) - direct.percentile(0.5)
                check(
                    ours <= theirs,
                    "16 B p50 overhead over direct: \(name) \(format(ours)) µs ≤ socat \(format(theirs)) µs"
                )
                check(
                    daemon.percentile(0.99) <= socat.percentile(0.99),
                    "16 B p99: \(name) \(format(daemon.percentile(0.99))) µs ≤ socat \(format(socat.percentile(0.99))) µs"
                )
            }
            let daemonRuns = concurrency.filter { $0.kind == kind }
            if let one = daemonRuns.first(where: { $0.clients == 1 }),
                let most = daemonRuns.max(by: { $0.clients < $1.clients }),
                most.clients > 1
            {
                check(
                    most.crossed == 0 && !most.stalled,
                    "\(name), K = \(most.clients): \(most.crossed) crossed replies"
                )
                let share = most.requestsPerSecond / one.requestsPerSecond * 100
                check(
                    share >= 90,
                    "\(name), K = \(most.clients): \(format(share, 0)) % of its K = 1 requests/s (≥ 90 %)"
                )
            }
            let rate = { (kind: TargetKind) in self.streaming.first { $0.kind == kind && !$0.raw }?.megabytesPerSecond }
            for result in streaming where result.kind == kind {
                guard let direct = rate(.direct) else { break }
                let daemon = result.megabytesPerSecond
                check(
                    daemon >= direct / 2,
                    "streaming, \(result.label): \(format(daemon)) MB/s ≥ half of direct \(format(direct)) MB/s"
                )
                if let ser2net = [rate(.ser2net), rate(.ser2netDefault)].compactMap({ $0 }).max() {
                    check(daemon > ser2net, "streaming, \(result.label): above ser2net's best \(format(ser2net)) MB/s")
                }
                if result.raw, let socat = streaming.first(where: { $0.kind == .socat }),
                    socat.rates.count == result.rates.count
                {
                    let lowest = zip(result.rates, socat.rates).map { $0 / $1 }.min() ?? 0
                    check(
                        lowest >= 1,
                        "streaming, \(result.label): at or above socat in every round (lowest ratio \(format(lowest, 2))×)"
                    )
                }
                if result.raw, let socat = streaming.first(where: { $0.kind == .socat }) {
                    let daemonCPU = result.cpuMillisecondsPerMiB
                    let socatCPU = socat.cpuMillisecondsPerMiB
                    check(
                        daemonCPU < socatCPU,
                        "streaming, \(result.label): relay CPU \(format(daemonCPU, 2)) ms/MiB below socat's \(format(socatCPU, 2))"
                    )
                }
            }
            if let daemon = cpu(kind), let socat = cpu(.socat) {
                check(
                    daemon <= socat * 1.5,
                    "CPU per 16 B transact, \(name): \(format(daemon, 2)) µs ≤ 1.5 × socat's \(format(socat, 2)) µs per relayed request"
                )
            }
            if let daemon = memory.first(where: { $0.kind == kind })?.stats {
                check(
                    daemon.anonymousKiB < 8 * 1_024,
                    "private memory (RssAnon), \(name): \(format(Double(daemon.anonymousKiB) / 1_024)) MiB < 8 MiB with 16 "
                        + "accessories (peak RSS \(format(Double(daemon.peakRSSKiB) / 1_024)) MiB)"
                )
            }
        }
        lines += networkChecks()
        if let idle {
            check(
                idle.cpuPercent < 1,
                "\(idle.accessories) idle accessories: \(format(idle.cpuPercent, 2)) % CPU < 1 %"
            )
        }
        if let replug {
            let p99 = replug.samples.percentile(0.99) / 1_000
            check(p99 < 50, "replug to ready p99 \(format(p99, 2)) ms < 50 ms")
        }
        if let before = cpu(.accessorydBaseline), let after = cpu(.accessoryd),
            let direct = small(.direct), let old = small(.accessorydBaseline), let new = small(.accessoryd)
        {
            // The request path must not get slower: this build against the baseline, same run.
            let overheadBefore = old.percentile(0.5) - direct.percentile(0.5)
            let overheadAfter = new.percentile(0.5) - direct.percentile(0.5)
            check(
                overheadAfter <= overheadBefore * 1.05,
                "16 B p50 overhead over direct: accessoryd \(format(overheadAfter)) µs, baseline \(format(overheadBefore)) µs "
                    + "(\(format(overheadAfter / overheadBefore, 2))×, ≤ 1.05×)"
            )
            check(
                after <= before * 1.05,
                "CPU per 16 B transact: accessoryd \(format(after, 2)) µs, baseline \(format(before, 2)) µs "
                    + "(\(format(after / before, 2))×, ≤ 1.05×)"
            )
        }
        return lines + viewChecks()
    }
}
