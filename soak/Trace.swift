/// The life of one `transact` payload, kept so that a violation can say where a misplaced answer
/// came from: when it was sent, reached the accessory, was echoed, and how its request ended.
///
/// Threading: a value, kept by ``SoakWorld`` on the loop thread.
struct Trace {
    let sentAt: Double
    var arrivedAt: Double?
    var echoedAt: Double?
    var outcome = "no response yet"

    func describe(since start: Double) -> String {
        func ms(_ t: Double?) -> String { t.map { "\(Int((($0 - start) * 1000).rounded())) ms" } ?? "never" }
        return "sent at \(ms(sentAt)), at the accessory \(ms(arrivedAt)), echoed \(ms(echoedAt)); \(outcome)"
    }
}
