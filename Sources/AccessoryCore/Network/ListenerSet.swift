import AccessoryConfig
import ControlProtocol
import IOLoop
import SystemCalls

/// The registry's network listeners, by address: made at start, reconciled by a reload (a
/// listener whose accessory and settings are unchanged is kept as it is, with its connections;
/// changed ones are closed and made again; removed ones closed), closed at shutdown. Listeners
/// belong to accessory names, so a reload that replaces an accessory keeps them.
///
/// Device loop only.
final class ListenerSet {
    unowned let registry: AccessoryRegistry
    private(set) var listeners: [NetworkListener] = []
    /// Listeners that could not be made, with why (shown in `device.status`).
    private(set) var failures: [(accessory: String, settings: NetworkListenerSettings, error: String)] = []
    /// Connection client ids: above the views' (which start at 2^62).
    private var nextClientID: UInt64 = 1 << 62 | 1 << 61

    init(registry: AccessoryRegistry) {
        self.registry = registry
    }

    /// Makes, keeps or closes listeners so that they match `accessories`' `network:`. Nothing is
    /// half made: a listener that cannot bind is reported, and the others stand. Device loop.
    func apply(_ accessories: [AccessorySettings]) {
        registry.loop.assertInLoop()
        var wanted: [(accessory: String, settings: NetworkListenerSettings)] = []
        for a in accessories { for n in a.network { wanted.append((a.name, n)) } }
        var kept: [NetworkListener] = []
        for l in listeners {
            if wanted.contains(where: { $0.accessory == l.accessoryName && $0.settings == l.settings }) {
                kept.append(l)
            } else {
                l.close(reason: "its listener was changed or removed by the configuration")
                registry.log(.info, "listener \(l.settings.listen) of \(l.accessoryName) closed")
            }
        }
        listeners = kept
        failures = []
        for w in wanted
        where !kept.contains(where: { $0.accessoryName == w.accessory && $0.settings == w.settings }) {
            do {
                let listener = try NetworkListener(accessoryName: w.accessory, settings: w.settings, registry: registry)
                {
                    [unowned self] in
                    nextClientID += 1
                    return nextClientID
                }
                listeners.append(listener)
                registry.log(
                    .info,
                    "listener \(w.settings.listen) of \(w.accessory): \(w.settings.kind.rawValue), settings "
                        + w.settings.settings.rawValue
                )
            } catch {
                let why = error.errno == .addressInUse ? "the port is in use" : "\(error)"
                failures.append((w.accessory, w.settings, why))
                registry.log(.error, "listener \(w.settings.listen) of \(w.accessory): cannot listen: \(why)")
            }
        }
    }

    /// Closes every listener and connection (the daemon is stopping). Device loop.
    func closeAll() {
        registry.loop.assertInLoop()
        for l in listeners { l.close(reason: "the daemon is stopping") }
        listeners = []
    }

    /// `a` changed state: its detached connections start their sessions once it is ready.
    /// Device loop.
    func accessoryChanged(_ a: Accessory) {
        for l in listeners where l.accessoryName == a.name { l.accessoryChanged(ready: a.state == .ready) }
    }

    /// The listeners of accessory `name`. Device loop.
    func listeners(of name: String) -> [NetworkListener] {
        listeners.filter { $0.accessoryName == name }
    }

    /// The listeners of accessory `name` for `device.status`, and those that could not listen.
    /// Device loop.
    func status(of name: String) -> [ListenerStatus] {
        registry.loop.assertInLoop()
        var list = listeners(of: name).map { l in
            ListenerStatus(
                listen: l.settings.listen.description,
                kind: l.settings.kind.rawValue,
                settings: l.settings.settings.rawValue,
                counters: l.counters,
                connections: l.connections.map { c in
                    NetworkConnectionStatus(
                        clientID: Int64(clamping: c.clientID),
                        remote: c.remote.description,
                        uid: Int64(c.uid),
                        session: c.session.name,
                        counters: c.counters
                    )
                }
            )
        }
        for f in failures where f.accessory == name {
            list.append(
                ListenerStatus(
                    listen: f.settings.listen.description,
                    kind: f.settings.kind.rawValue,
                    settings: f.settings.settings.rawValue,
                    error: f.error
                )
            )
        }
        return list
    }
}
