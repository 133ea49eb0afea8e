/// The network listener's numbers: accessoryd's raw TCP and RFC 2217 listeners against
/// ser2net's accepters of the same protocol, from the same run. At least ser2net's streaming
/// throughput, and no more than its 16-byte round-trip overhead over direct (p50).
///
/// Threading: main thread.
extension Report {
    func networkChecks() -> [String] {
        var lines: [String] = []
        func check(_ passed: Bool, _ text: String) { lines.append("- [\(passed ? "x" : " ")] " + text) }
        func small(_ kind: TargetKind) -> Samples? { latency.first { $0.kind == kind && $0.size == 16 }?.samples }
        func rate(_ kind: TargetKind) -> Double? { streaming.first { $0.kind == kind }?.megabytesPerSecond }
        for (ours, theirs) in [
            (TargetKind.accessorydTCP, TargetKind.ser2netTCP), (.accessorydRFC2217, .ser2netRFC2217),
        ] {
            if let direct = small(.direct), let daemon = small(ours), let peer = small(theirs) {
                let overhead = daemon.percentile(0.5) - direct.percentile(0.5)
                let peerOverhead = peer.percentile(0.5) - direct.percentile(0.5)
                check(
                    overhead <= peerOverhead,
                    "16 B p50 overhead over direct: \(ours.rawValue) \(format(overhead)) µs ≤ \(theirs.rawValue) "
                        + "\(format(peerOverhead)) µs (\(format(overhead / peerOverhead, 2))×)"
                )
            }
            if let daemon = rate(ours), let peer = rate(theirs) {
                check(
                    daemon >= peer,
                    "streaming: \(ours.rawValue) \(format(daemon)) MB/s ≥ \(theirs.rawValue) \(format(peer)) MB/s "
                        + "(\(format(daemon / peer, 2))×)"
                )
            }
        }
        return lines
    }
}
