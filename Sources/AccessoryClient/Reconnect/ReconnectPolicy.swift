/// Whether an ``AccessoryConnection`` connects again after the daemon went away, and for how
/// long it tries.
///
/// After the daemon went away (it stopped or restarted: the socket ended), calls in flight fail
/// with ``ClientError/daemonRestarted`` and are never resent. With ``enabled``, the connection
/// then connects again: at once when it has subscriptions (sent again before any other call),
/// else on the next call. Calls made meanwhile wait and are then sent (they never reached the
/// daemon). Attempts are spaced by ``Backoff`` (50 ms doubling to 1 s, jittered) and given up
/// ``giveUpAfter`` after the first. Remote connections (`ssh://`) never reconnect.
///
/// Threading: a value. Any thread.
package struct ReconnectPolicy: Sendable, Hashable {
    /// Whether to connect again at all.
    package var enabled: Bool
    /// How long one round of attempts lasts before the calls waiting for it fail with the last
    /// attempt's error.
    package var giveUpAfter: Duration

    package init(enabled: Bool = true, giveUpAfter: Duration = .seconds(30)) {
        self.enabled = enabled
        self.giveUpAfter = max(giveUpAfter, .milliseconds(1))
    }

    /// Reconnect, giving up after 30 s: the library's default.
    package static let `default` = ReconnectPolicy()
    /// Never reconnect: once the daemon went away, every call fails with
    /// ``ClientError/disconnected`` and ``AccessoryConnection/events`` finishes.
    package static let never = ReconnectPolicy(enabled: false)
}

/// What happened to the daemon behind a reconnecting ``AccessoryConnection``, for a program
/// that tells its user (``AccessoryConnection/onLinkChange(_:)``).
///
/// Threading: a value. Any thread.
package enum LinkChange: Sendable, Hashable {
    /// The daemon went away; reconnecting (now, or on the next call when nothing is subscribed).
    case lost
    /// Connected again; the subscriptions are sent again.
    case restored
    /// The round of attempts ended without a daemon: `error` is the last attempt's.
    case gaveUp(ClientError)
}
