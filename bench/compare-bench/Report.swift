/// Everything one run measured, and its Markdown.
///
/// Threading: main thread.
struct Report {
    var header: [String] = []
    var latency: [LatencyResult] = []
    var concurrency: [ConcurrencyResult] = []
    var streaming: [StreamingResult] = []
    var memory: [(kind: TargetKind, stats: ProcessStats)] = []
    var daemonLibraries: [String] = []
    var interference: [InterferenceResult] = []
    var replug: ReplugResult?
    var idle: IdleResult?
    var views: ViewsResult?
    /// Sentences about what failed or was left out.
    var notes: [String] = []

    func markdown() -> String {
        var out = header
        out += latencyTable() + concurrencyTable() + streamingTable() + memoryTable() + interferenceTable()
        out += daemonTable() + viewsTable()
        out += notes.isEmpty ? [] : [""] + notes
        out += ["", "### The issue's targets, from this run", ""] + checks()
        return out.joined(separator: "\n") + "\n"
    }

    private func latencyTable() -> [String] {
        guard !latency.isEmpty else { return [] }
        var lines = [
            "", "### Round trip, sequential (one client)", "",
            "| target | request | p50 µs | p90 µs | p99 µs | max µs | p50 over direct µs | relay CPU µs/request |",
            "|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for result in latency {
            let direct = latency.first { $0.kind == .direct && $0.size == result.size }
            let s = result.samples
            lines.append(
                row([
                    result.kind.rawValue, "\(result.size) B", format(s.percentile(0.5)), format(s.percentile(0.9)),
                    format(s.percentile(0.99)), format(s.percentile(1)),
                    direct.map { format(s.percentile(0.5) - $0.samples.percentile(0.5)) } ?? "",
                    result.kind == .direct ? "–" : format(result.cpuMicrosecondsPerRequest),
                ])
            )
        }
        return lines
    }

    private func interferenceTable() -> [String] {
        guard let first = interference.first else { return [] }
        var lines = [
            "", "### Interference: \(first.flooders) clients sending \(first.lineBytes)-byte request lines", "",
            "Each long line is a `devices.list` with a long unknown member: parsed whole, then refused. "
                + "Tick lateness: an accessory writes a line every millisecond with the time; how late it "
                + "reaches a subscriber (the device loop's delay). Transact: another client's 16 B round trip.",
            "",
            "| target | tick late p50 µs | p99 µs | max µs | flooded: p50 µs | p99 µs | max µs "
                + "| transact p50 µs | flooded: p50 µs | p99 µs | long lines/s |",
            "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|",
        ]
        for r in interference {
            lines.append(
                row([
                    r.kind.rawValue, format(r.quietTicks.percentile(0.5)), format(r.quietTicks.percentile(0.99)),
                    format(r.quietTicks.percentile(1)), format(r.floodedTicks.percentile(0.5)),
                    format(r.floodedTicks.percentile(0.99)), format(r.floodedTicks.percentile(1)),
                    format(r.quietTransacts.percentile(0.5)), format(r.floodedTransacts.percentile(0.5)),
                    format(r.floodedTransacts.percentile(0.99)), format(r.floodLinesPerSecond, 0),
                ])
            )
        }
        return lines
    }

    private func concurrencyTable() -> [String] {
        guard !concurrency.isEmpty else { return [] }
        var lines = [
            "", "### K clients on one accessory", "",
            "| target | K | own replies | own replies/s | p50 µs | p99 µs | crossed replies | note |",
            "|---|---:|---:|---:|---:|---:|---:|---|",
        ]
        for result in concurrency {
            lines.append(
                row([
                    result.kind.rawValue, String(result.clients), String(result.samples.count),
                    format(result.requestsPerSecond, 0), format(result.samples.percentile(0.5)),
                    format(result.samples.percentile(0.99)), String(result.crossed),
                    result.stalled
                        ? "stopped early (no reply for 1 s, or 15 s)"
                        : "",
                ])
            )
        }
        return lines
    }

    private func streamingTable() -> [String] {
        guard let direct = streaming.first(where: { $0.kind == .direct }) else { return [] }
        var lines = [
            "",
            "### Streaming (256-B lines sent back to back in 4 KiB batches, 16 KiB in flight; accessoryd: one `write` request a batch and `device.data` back, or raw after `attach`; median of \(direct.rates.count) interleaved rounds)",
            "",
            "| target | MB/s | min–max | of direct | relay CPU ms/MiB |", "|---|---:|---:|---:|---:|",
        ]
        for result in streaming {
            let share = result.megabytesPerSecond / direct.megabytesPerSecond * 100
            let median = format(result.megabytesPerSecond)
            let cpu = result.kind == .direct ? "–" : format(result.cpuMillisecondsPerMiB, 2)
            lines.append(row([result.label, median, result.spread, format(share, 0) + " %", cpu]))
        }
        if let socat = streaming.first(where: { $0.kind == .socat }) {
            for result in streaming
            where result.kind.isAccessoryd && result.raw && result.rates.count == socat.rates.count {
                let ratios = zip(result.rates, socat.rates).map { format($0 / $1, 2) + "×" }
                let cpu = format(result.cpuMillisecondsPerMiB / socat.cpuMillisecondsPerMiB, 2)
                lines.append("")
                lines.append(
                    "\(result.label) ÷ socat, round by round: \(ratios.joined(separator: ", ")); relay CPU per MiB \(cpu)×."
                )
            }
        }
        return lines
    }

    private func memoryTable() -> [String] {
        guard !memory.isEmpty else { return [] }
        var lines = [
            "", "### Memory of the relay after the K-client runs (process and children)", "",
            "| target | peak RSS MiB | RSS MiB | private (RssAnon) MiB |", "|---|---:|---:|---:|",
        ]
        for (kind, stats) in memory {
            lines.append(
                row([
                    kind.rawValue, mebibytes(stats.peakRSSKiB), mebibytes(stats.rssKiB), mebibytes(stats.anonymousKiB),
                ])
            )
        }
        if !daemonLibraries.isEmpty {
            lines += ["", "accessoryd maps: " + daemonLibraries.joined(separator: ", ") + "."]
        }
        return lines
    }

    private func daemonTable() -> [String] {
        var lines: [String] = []
        if let idle {
            lines += [
                "",
                "accessoryd with \(idle.accessories) idle simulated accessories: \(format(idle.cpuPercent, 2)) % CPU over "
                    + "\(format(idle.seconds, 0)) s, RSS \(mebibytes(idle.stats.rssKiB)) MiB, private "
                    + "\(mebibytes(idle.stats.anonymousKiB)) MiB.",
            ]
        }
        if let replug {
            let s = replug.samples
            lines += [
                "",
                "Replug to ready (new link appears → `device.state ready`), \(s.count) replugs: p50 "
                    + "\(format(s.percentile(0.5) / 1_000, 2)) ms, p99 \(format(s.percentile(0.99) / 1_000, 2)) ms, "
                    + "max \(format(s.percentile(1) / 1_000, 2)) ms.",
            ]
        }
        return lines
    }

    private func row(_ cells: [String]) -> String { "| " + cells.joined(separator: " | ") + " |" }
    private func mebibytes(_ kib: Int) -> String { format(Double(kib) / 1_024) }
}

/// `value` with `decimals` digits after the point. Any thread.
func format(_ value: Double, _ decimals: Int = 1) -> String {
    guard value.isFinite else { return "–" }
    var scale = 1.0
    for _ in 0..<decimals { scale *= 10 }
    let rounded = (value * scale).rounded() / scale
    var text = String(rounded)
    if let dot = text.firstIndex(of: ".") {
        let have = text.distance(from: dot, to: text.endIndex) - 1
        if have < decimals { text += String(repeating: "0", count: decimals - have) }
    }
    return decimals == 0 ? String(Int(rounded)) : text
}
