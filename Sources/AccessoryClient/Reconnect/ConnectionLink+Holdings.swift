import ControlProtocol

/// What a connection holds on the daemon, as far as a new daemon is concerned: subscriptions
/// are sent again, locks are not (a new daemon cannot know them) and are reported lost.
///
/// Threading: any thread (the link's lock).
extension ConnectionLink {
    /// A `subscribe` or `unsubscribe` succeeded: sent again, in order, after a reconnect. An
    /// `unsubscribe` of everything forgets what came before.
    func remember(_ method: Method) {
        guard policy.enabled else { return }
        state.withLock { s in
            if case .unsubscribe(let params) = method, params.device == nil, params.events == nil {
                s.subscriptions = []
            } else {
                s.subscriptions.append(method)
            }
        }
    }

    /// This connection took the lock on `device`.
    func lockTaken(_ device: String) {
        state.withLock { s in
            s.lostLocks.remove(device)
            s.heldLocks.insert(device)
        }
    }

    /// This connection released the lock on `device`.
    func lockReleased(_ device: String) {
        _ = state.withLock { $0.heldLocks.remove(device) }
    }

    /// Forgets the lost lock on `device`; true if there was one (nothing to unlock then).
    func forgetLostLock(_ device: String) -> Bool {
        state.withLock { $0.lostLocks.remove(device) != nil }
    }

    /// Throws ``ClientError/lockLost(device:)`` while the lock on `device` is lost and neither
    /// taken again nor let go: the program believed it had the accessory to itself.
    func checkLock(_ device: String) throws(ClientError) {
        if state.withLock({ $0.lostLocks.contains(device) }) { throw .lockLost(device: device) }
    }
}
