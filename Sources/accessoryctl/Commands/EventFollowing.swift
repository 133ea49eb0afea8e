import AccessoryClient
import ControlProtocol

/// The loop `monitor` and `trace` share: a subscription's events, each handed to a formatter,
/// until a count, a time limit, an interrupt or the daemon going away.
///
/// Threading: called from the command's task; the events, the time limit and the signals are
/// awaited by child tasks.
enum EventFollowing {
    /// Why following stopped.
    ///
    /// Threading: a value. Any thread.
    private enum End: Sendable {
        case done
        case disconnected
    }

    /// Hands each event of `connection` to `show`, which prints it and says whether it counts
    /// towards `count` (an event it does not print does not). Returns after `count` counted
    /// events, after `durationMs`, or on SIGINT/SIGTERM (`signals`); throws
    /// ``ClientError/disconnected`` if the daemon goes away first and the connection does not
    /// reconnect, or the last attempt's error when reconnecting gave up. Each time the daemon
    /// goes away and each time the connection is back, one line on standard error says so.
    static func follow(
        _ connection: AccessoryConnection,
        signals: SignalWatch?,
        count: Int?,
        durationMs: Int64?,
        show: @escaping @Sendable (DeviceEvent) -> Bool
    ) async throws(ClientError) {
        connection.onLinkChange { change in
            switch change {
            case .lost: Output.error("accessoryctl: accessoryd went away; reconnecting")
            case .restored: Output.error("accessoryctl: reconnected to accessoryd; carrying on")
            case .gaveUp: break  // the error that ends the command says it
            }
        }
        let end = await withTaskGroup(of: End.self) { group in
            group.addTask {
                var seen = 0
                for await event in connection.events {
                    guard show(event) else { continue }
                    seen += 1
                    if let count, seen >= count { return .done }
                }
                return Task.isCancelled ? .done : .disconnected
            }
            if let durationMs {
                group.addTask {
                    try? await Task.sleep(for: .milliseconds(durationMs))
                    return .done
                }
            }
            if let signals {
                group.addTask {
                    _ = await signals.next()
                    return .done
                }
            }
            let first = await group.next() ?? .done
            group.cancelAll()
            return first
        }
        if end == .disconnected { throw connection.endReason ?? .disconnected }
    }
}
