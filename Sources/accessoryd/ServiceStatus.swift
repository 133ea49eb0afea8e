import ControlProtocol

/// The one-line summary systemd shows in `systemctl status` (`STATUS=`), e.g.
/// "3 accessories ready, 1 absent; 2 clients", and what it is made from.
///
/// Threading: a value. Any thread.
struct ServiceStatus: Equatable {
    /// How many accessories are in each state.
    var states: [DeviceState: Int] = [:]
    /// Clients connected to the control socket.
    var clients = 0

    /// The line: ready first (always), then the other states that have accessories, in the
    /// order of ``DeviceState``, then the clients.
    var line: String {
        let ready = states[.ready] ?? 0
        var parts = ["\(ready) \(ready == 1 ? "accessory" : "accessories") ready"]
        for state in DeviceState.allCases where state != .ready {
            if let n = states[state], n > 0 { parts.append("\(n) \(state.rawValue)") }
        }
        return parts.joined(separator: ", ") + "; \(clients) \(clients == 1 ? "client" : "clients")"
    }
}
