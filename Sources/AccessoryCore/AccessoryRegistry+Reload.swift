import AccessoryConfig
import IOLoop

/// A reload change that waits for its accessory to become idle. Device loop only.
enum PendingChange {
    /// Replace the accessory with one made from these settings.
    case replace(AccessorySettings, devicePaths: [String: String], limits: Limits)
    /// Remove the accessory.
    case remove
}

/// What a reload did, for the log and systemd's STATUS=.
///
/// Threading: a value. Any thread.
public struct ReloadSummary: Sendable, Equatable, CustomStringConvertible {
    public var added: [String] = []
    public var removed: [String] = []
    /// Replaced at once (they were idle).
    public var changed: [String] = []
    /// Busy (requests queued or executing, a resync, a lock): replaced or removed once idle.
    public var deferred: [String] = []
    public var unchanged: [String] = []

    public init() {}

    public var description: String {
        let parts: [(String, [String])] = [
            ("added", added), ("removed", removed), ("changed", changed),
            ("deferred until idle", deferred), ("unchanged", unchanged),
        ]
        let said = parts.filter { !$0.1.isEmpty }.map { "\($0.0): \($0.1.joined(separator: ", "))" }
        return said.isEmpty ? "no accessories" : said.joined(separator: "; ")
    }
}

extension AccessoryRegistry {
    /// Applies a new configuration without dropping a client: accessories whose settings did not
    /// change keep running untouched (their queue, lock, subscribers' state); new ones open;
    /// changed and removed ones are replaced or closed at once when idle, otherwise as soon as they
    /// become idle (their admitted requests finish first). The newest reload wins over changes
    /// still pending from an earlier one.
    ///
    /// A replaced accessory's requests that were waiting for it to become ready fail with
    /// `device unavailable` ("reconfigured"); its lock, if any, ends. Device loop.
    @discardableResult
    public func reload(_ configuration: Configuration, devicePaths: [String: String]) -> ReloadSummary {
        loop.preconditionInLoop()
        var summary = ReloadSummary()
        let limitsChanged = Self.accessoryLimits(configuration.limits) != Self.accessoryLimits(limits)
        limits = configuration.limits
        pendingChanges.removeAll()
        var next: [Accessory] = []
        for settings in configuration.accessories {
            guard let old = byName[settings.name] else {
                let a = makeAccessory(settings, devicePaths: devicePaths, limits: limits)
                next.append(a)
                byName[a.name] = a
                wire(a)
                a.open()
                summary.added.append(a.name)
                continue
            }
            let samePath = old.configuredPath == Self.devicePath(for: settings, devicePaths: devicePaths)
            // Views and listeners are their sets' (below): a change of them alone leaves the accessory be.
            if old.settings.withoutAttachments == settings.withoutAttachments && samePath && !limitsChanged {
                next.append(old)
                summary.unchanged.append(old.name)
            } else if old.isIdle || old.state != .ready {
                next.append(replace(old, with: settings, devicePaths: devicePaths))
                summary.changed.append(old.name)
            } else {
                pendingChanges[old.name] = .replace(settings, devicePaths: devicePaths, limits: limits)
                next.append(old)
                summary.deferred.append(old.name)
            }
        }
        let kept = Set(configuration.accessories.map(\.name))
        for old in accessories where !kept.contains(old.name) {
            if old.isIdle || old.state != .ready {
                retire(old, reason: "removed from the configuration")
                byName[old.name] = nil
                summary.removed.append(old.name)
            } else {
                // Kept (last) until idle, so its admitted requests finish.
                pendingChanges[old.name] = .remove
                next.append(old)
                summary.deferred.append(old.name)
            }
        }
        accessories = next
        views.apply(configuration.accessories)
        listeners.apply(configuration.accessories)
        log(.notice, "reload: \(summary)")
        return summary
    }

    /// A busy accessory may have become idle: apply its pending change on the next loop turn (not
    /// from inside the queue's or the lock's callback that told us). Device loop.
    func applyPendingChange(to a: Accessory) {
        loop.assertInLoop()
        guard pendingChanges[a.name] != nil, a.isIdle else { return }
        _ = loop.perform { [self] in
            guard byName[a.name] === a, a.isIdle || a.state != .ready, let change = pendingChanges[a.name] else {
                return
            }
            pendingChanges[a.name] = nil
            switch change {
            case .replace(let settings, let devicePaths, let limits):
                let new = replace(a, with: settings, devicePaths: devicePaths, limits: limits)
                if let i = accessories.firstIndex(where: { $0 === a }) { accessories[i] = new }
                log(.notice, "reload: \(a.name) changed (it was busy until now)")
            case .remove:
                retire(a, reason: "removed from the configuration")
                byName[a.name] = nil
                accessories.removeAll { $0 === a }
                log(.notice, "reload: \(a.name) removed (it was busy until now)")
            }
        }
    }

    private func replace(
        _ old: Accessory,
        with settings: AccessorySettings,
        devicePaths: [String: String],
        limits: Limits? = nil
    ) -> Accessory {
        retire(old, reason: "reconfigured by a reload")
        let a = makeAccessory(settings, devicePaths: devicePaths, limits: limits ?? self.limits)
        byName[a.name] = a
        wire(a)
        a.open()
        return a
    }

    /// Closes an accessory that leaves the registry; anything still waiting on it is answered.
    private func retire(_ a: Accessory, reason: String) {
        a.onMaybeIdle = nil
        a.shutDown(error: .unavailable(device: a.name, state: .disabled, reason: reason), reason: reason)
        a.onStateChange = nil
        a.onUnsolicited = nil
        a.onClaimingFrame = nil
        a.onRawSessionStarting = nil
    }

    /// The limits an accessory is built with (the others are the control server's, fixed at start).
    private static func accessoryLimits(_ l: Limits) -> [Int] {
        [l.queueDepth, l.defaultTimeoutMs, l.clientOutboundBytes, l.attachIdleMs]
    }
}
