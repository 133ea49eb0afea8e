/// The pty views section of the report, and its targets checked against this run's figures.
///
/// Threading: main thread.
extension Report {
    func viewsTable() -> [String] {
        guard let views else { return [] }
        var lines: [String] = []
        if let attach = views.rate(ViewsResult.attach) {
            let direct = views.rate(ViewsResult.direct)
            lines += [
                "", "### Pty views: streaming through an echo accessory (median of 3 interleaved rounds)", "",
                "256-B lines back to back, 16 KiB in flight, \(views.streamedMiB) MiB a round "
                    + "(\(min(views.streamedMiB, ViewsResult.uartStreamBytes >> 20)) MiB at "
                    + "\(ViewsResult.uartBaud / 1_000_000) Mbaud); the views and socat's pty are opened as a program "
                    + "opens a serial port (raw). The last two rows' echo accessory answers no faster than a UART "
                    + "(echo-accessory --baud \(ViewsResult.uartBaud)); the others' answers at memory speed.",
                "", "| path | MB/s | of `attach` | of direct |", "|---|---:|---:|---:|",
            ]
            for (label, rate) in views.streaming {
                let uart = label == ViewsResult.exclusiveUART || label == ViewsResult.attachUART
                let base = uart ? views.rate(ViewsResult.attachUART) ?? attach : attach
                lines.append(
                    "| \(label) | \(format(rate, uart ? 3 : 1)) | \(format(rate / base * 100, 0)) % | "
                        + (uart ? "" : direct.map { format(rate / $0 * 100, 0) + " %" } ?? "") + " |"
                )
            }
        }
        if let shared = views.sharedView, let transact = views.transact {
            lines += [
                "", "### Pty views: 16-B request round trip, one at a time, on one echo accessory", "",
                "| path | requests | p50 µs | p90 µs | p99 µs | p50 over `transact`'s |",
                "|---|---:|---:|---:|---:|---:|",
            ]
            for (label, s) in [
                ("`shared` view (a line written, its echo read)", shared), ("socket `transact`", transact),
            ] {
                lines.append(
                    "| \(label) | \(s.count) | \(format(s.percentile(0.5))) | \(format(s.percentile(0.9))) | "
                        + "\(format(s.percentile(0.99))) | \(format(s.percentile(0.5) / transact.percentile(0.5), 2)) × |"
                )
            }
        }
        if let monitors = views.monitors {
            lines += [
                "",
                "\(monitors.accessories) simulated NMEA receivers (a fix a second), each with a `monitor` view no "
                    + "program opened: accessoryd \(format(monitors.cpuPercent, 2)) % CPU over "
                    + "\(format(monitors.seconds, 0)) s, RSS \(format(Double(monitors.stats.rssKiB) / 1_024)) MiB, "
                    + "private (RssAnon) \(format(Double(monitors.stats.anonymousKiB) / 1_024)) MiB.",
            ]
        }
        return lines
    }

    func viewChecks() -> [String] {
        guard let views else { return [] }
        var lines: [String] = []
        func check(_ passed: Bool, _ text: String) { lines.append("- [\(passed ? "x" : " ")] " + text) }
        if let view = views.rate(ViewsResult.exclusive), let attach = views.rate(ViewsResult.attach) {
            check(
                view >= attach * 0.9,
                "exclusive view streaming \(format(view)) MB/s ≥ 90 % of attach's \(format(attach)) MB/s "
                    + "(\(format(view / attach * 100, 0)) %)"
            )
            if let socat = views.rate(ViewsResult.socatPTY) {
                check(
                    view > socat,
                    "exclusive view streaming \(format(view)) MB/s above socat's PTY relay \(format(socat)) MB/s"
                )
            }
        }
        if let view = views.rate(ViewsResult.exclusiveUART), let attach = views.rate(ViewsResult.attachUART) {
            check(
                view >= attach * 0.9,
                "with the accessory paced like a \(ViewsResult.uartBaud / 1_000_000) Mbaud UART: exclusive view "
                    + "\(format(view, 3)) MB/s ≥ 90 % of attach's \(format(attach, 3)) MB/s (\(format(view / attach * 100, 0)) %)"
            )
        }
        if let shared = views.sharedView, let transact = views.transact {
            let ratio = shared.percentile(0.5) / transact.percentile(0.5)
            check(
                ratio <= 1.5,
                "shared view 16 B p50 \(format(shared.percentile(0.5))) µs ≤ 1.5 × transact's "
                    + "\(format(transact.percentile(0.5))) µs (\(format(ratio, 2)) ×)"
            )
        }
        if let monitors = views.monitors {
            let mib = Double(monitors.stats.anonymousKiB) / 1_024
            check(mib < 8, "\(monitors.accessories) monitor views, no reader: RssAnon \(format(mib)) MiB < 8 MiB")
            check(
                monitors.cpuPercent < 1,
                "\(monitors.accessories) monitor views, no reader: \(format(monitors.cpuPercent, 2)) % CPU < 1 %"
            )
        }
        return lines
    }
}
