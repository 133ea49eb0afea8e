/// Bytes each way and how long the session has lasted, for the `s` key and the end of a session.
///
/// Threading: a value, owned by one thread.
package struct SessionStatistics: Sendable, Hashable {
    package var bytesSent = 0
    package var bytesReceived = 0

    package init() {}

    /// `sent 12 bytes, received 1,024 bytes in 0:01:02.3`.
    package func summary(elapsed: Duration) -> String {
        "sent \(Self.count(bytesSent)), received \(Self.count(bytesReceived)) in \(Self.clock(elapsed))"
    }

    static func count(_ n: Int) -> String {
        var digits = String(n)
        var grouped = ""
        while digits.count > 3 {
            grouped = "," + digits.suffix(3) + grouped
            digits.removeLast(3)
        }
        return digits + grouped + (n == 1 ? " byte" : " bytes")
    }

    /// `H:MM:SS.t`.
    static func clock(_ elapsed: Duration) -> String {
        let tenths = max(0, elapsed.components.seconds * 10 + elapsed.components.attoseconds / 100_000_000_000_000_000)
        let seconds = tenths / 10
        func two(_ v: Int64) -> String { v < 10 ? "0\(v)" : "\(v)" }
        return "\(seconds / 3600):\(two(seconds / 60 % 60)):\(two(seconds % 60)).\(tenths % 10)"
    }
}
