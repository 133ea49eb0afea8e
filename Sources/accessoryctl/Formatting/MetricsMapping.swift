import ControlProtocol
import JSONCodec

/// Which metric each member of `daemon.status` and `device.status` becomes.
///
/// Threading: stateless. Any thread.
enum MetricsMapping {
    /// daemon.status members: the metric name, its kind, its help. Members not listed here that
    /// are numbers become gauges named after them (a newer daemon's members are not lost).
    static let daemonMembers: [String: (String, PrometheusText.Kind, String)] = [
        "uptime_s": ("accessoryd_uptime_seconds", .gauge, "Seconds since the daemon started."),
        "pid": ("accessoryd_pid", .gauge, "The daemon's process id."),
        "clients": ("accessoryd_clients", .gauge, "Clients connected now."),
        "clients_accepted": ("accessoryd_clients_accepted_total", .counter, "Connections accepted since start."),
        "clients_rejected": (
            "accessoryd_clients_rejected_total", .counter, "Connections refused over limits.max_clients."
        ),
        "requests_decoded": ("accessoryd_requests_decoded_total", .counter, "Request lines handled."),
        "decode_errors": (
            "accessoryd_decode_errors_total", .counter, "Request lines answered with a protocol error."
        ),
        "input_deferrals": (
            "accessoryd_input_deferrals_total", .counter, "Reads of a client put off to the next turn of the loop."
        ),
        "clients_timed_out": (
            "accessoryd_clients_timed_out_total", .counter,
            "Connections closed for sending no request line within limits.idle_connection_timeout_ms."
        ),
        "clients_accepted_in_reserve": (
            "accessoryd_clients_accepted_in_reserve_total", .counter,
            "Connections of root or the daemon's user accepted past limits.max_clients."
        ),
        "batches_refused": (
            "accessoryd_batches_refused_total", .counter, "Batches refused whole before any element ran."
        ),
        "replies_too_large": (
            "accessoryd_replies_too_large_total", .counter,
            "Replies replaced by an error for not fitting in limits.client_outbound_bytes."
        ),
        "accessories": ("accessoryd_accessories", .gauge, "Accessories configured (that the caller may use)."),
        "accessories_ready": ("accessoryd_accessories_ready", .gauge, "Accessories ready now."),
        "requests_in_flight": ("accessoryd_requests_in_flight", .gauge, "Requests admitted and not answered yet."),
    ]

    static func addDaemon(_ status: JSONObject, to text: inout PrometheusText) {
        if let version = status["version"]?.stringValue {
            text.add("accessoryd_info", .gauge, help: "The daemon's version.", labels: [("version", version)], 1)
        }
        for member in status.members {
            guard let value = number(member.value) else { continue }
            let (name, kind, help) =
                daemonMembers[member.key]
                ?? ("accessoryd_" + PrometheusText.namePart(member.key), .gauge, "daemon.status \(member.key).")
            text.add(name, kind, help: help, value)
        }
    }

    static func addAccessory(_ accessory: String, _ status: JSONObject, to text: inout PrometheusText) {
        let label = [("accessory", accessory)]
        if let state = status["state"]?.stringValue {
            // Every state, 1 for the current one: a query can alert on any of them by name.
            let states = DeviceState.allCases.map(\.rawValue)
            for name in states + (states.contains(state) ? [] : [state]) {
                text.add(
                    "accessoryd_accessory_state",
                    .gauge,
                    help: "1 for the accessory's current state, 0 for the others.",
                    labels: label + [("state", name)],
                    name == state ? 1 : 0
                )
            }
        }
        if let depth = status["queue_depth"].flatMap(number) {
            text.add("accessoryd_accessory_queue_depth", .gauge, help: "Requests queued.", labels: label, depth)
        }
        if let locked = status["locked"]?.boolValue {
            text.add(
                "accessoryd_accessory_locked",
                .gauge,
                help: "1 while a client holds the accessory's lock.",
                labels: label,
                locked ? 1 : 0
            )
        }
        guard let counters = status["counters"]?.objectValue else { return }
        for member in counters.members where !member.key.hasPrefix("latency_") {
            guard let value = number(member.value) else { continue }
            let name = "accessoryd_accessory_" + PrometheusText.namePart(member.key) + "_total"
            text.add(name, .counter, help: "device.status counters.\(member.key).", labels: label, value)
        }
        for (key, quantile) in [("latency_p50_ms", "0.5"), ("latency_p99_ms", "0.99")] {
            guard let ms = counters[key].flatMap(number) else { continue }
            text.add(
                "accessoryd_accessory_request_latency_seconds",
                .summary,
                help: "Request latency over the latest 1024 requests.",
                labels: label + [("quantile", quantile)],
                ms / 1000
            )
        }
    }

    /// A JSON number as a Double (integers exactly up to 2^53), nil for anything else.
    static func number(_ value: JSONValue) -> Double? {
        switch value {
        case .number(.integer(let integer)): Double(integer)
        case .number(.double(let double)): double
        default: nil
        }
    }
}
