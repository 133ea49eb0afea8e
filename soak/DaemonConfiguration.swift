/// The daemon's configuration for a soak run. Threading: pure functions. Any thread.
enum DaemonConfiguration {
    /// One line-framed accessory per echo accessory, named by its link. A transaction's answer is
    /// the first `T`/`S` line (spontaneous `R` lines before it are collected with it); `W` lines
    /// (echoed writes) go to subscribers only. Reopening is quick (10...100 ms back-off) so that
    /// replugged accessories come back within the unplug rhythm.
    static func text(world: SoakWorld, folder: String) -> String {
        let options = world.options
        var text = """
            socket: {path: \(world.socketPath), mode: "0600"}
            limits: {max_clients: \(options.clients * 2 + 16), queue_depth: 64, default_timeout_ms: 1000}
            log: {level: warning}
            accessories:

            """
        // Without --settle-ms, no resync key: the daemon's defaults must do.
        let resync = options.settleMs.map { "\n    resync: {settle_ms: \($0), late_ms: 0}" } ?? ""
        for accessory in world.accessories {
            text += """
                  - name: \(accessory.name)
                    path: \(accessory.link)
                    framing: {type: line, delimiter: "\\n"}
                    response: {until: '^[TS]', timeout_ms: 1000}
                    unsolicited: ['^W']\(resync)
                    reconnect: {initial_ms: 10, max_ms: 100}

                """
        }
        return text
    }
}
