import AccessoryConfig
import ControlProtocol
import IOLoop
import JSONCodec
import Operations

extension AccessoryRegistry {
    /// Handles one decoded request: hops to the device loop, answers through `origin` exactly once.
    /// Any thread.
    public func handle(_ request: Request, from origin: any RequestOrigin) {
        // Not `loop.execute`: its closure would be allocated even when it runs at once, and with
        // the default thread layout this is called on the loop.
        if loop.inLoop {
            handleOnLoop(request, from: origin)
        } else {
            loop.perform { [self] in handleOnLoop(request, from: origin) }
        }
    }

    /// A client disconnected: its queued requests are cancelled (the executing one is finished
    /// cleanly and the queue resyncs), its locks released, its subscriptions dropped. Any thread.
    public func clientLeft(_ origin: any RequestOrigin) {
        loop.execute { [self] in
            clients[origin.clientID] = nil
            releaseEverything(of: origin)
        }
    }

    /// Cancels the client's requests, releases its locks, drops its subscriptions. Idempotent.
    /// Device loop.
    func releaseEverything(of origin: any RequestOrigin) {
        loop.assertInLoop()
        let id = origin.clientID
        subscriptions[id] = nil
        for op in inflight.removeClient(id) where !op.accessory.unpark(op) {
            op.cancel()
        }
        for a in accessories { a.clientLeft(id) }
    }

    /// One function per method. A method that names an accessory gets it resolved first
    /// (``resolve(_:for:)``), so it works on an accessory that exists and the caller may use.
    private func handleOnLoop(_ request: Request, from origin: any RequestOrigin) {
        let caller = Caller(id: request.id, origin: origin)
        switch request.method {
        case .devicesList: devicesList(caller)
        case .deviceStatus(let p): if let a = resolve(p.device, for: caller) { deviceStatus(of: a, caller) }
        case .transact(let p): if let a = resolve(p.device, for: caller) { transact(p, on: a, caller) }
        case .write(let p): if let a = resolve(p.device, for: caller) { write(p, on: a, caller) }
        case .read(let p): if let a = resolve(p.device, for: caller) { read(p, on: a, caller) }
        case .subscribe(let p): if mayName(p.device, caller) { subscribe(p, caller) }
        case .unsubscribe(let p): if mayName(p.device, caller) { unsubscribe(p, caller) }
        case .lock(let p): if let a = resolve(p.device, for: caller) { lock(p, on: a, caller) }
        case .unlock(let p): if let a = resolve(p.device, for: caller) { unlock(a, caller) }
        case .control(let p): if let a = resolve(p.device, for: caller) { control(p, on: a, caller) }
        case .attach(let p): if let a = resolve(p.device, for: caller) { attach(p, on: a, caller) }
        case .cancel(let p): cancel(p, caller)
        case .clientsList: clientsList(caller)
        case .clientDisconnect(let p): clientDisconnect(p, caller)
        case .daemonStatus: caller.succeed(daemonStatus(for: caller.origin))
        }
    }

    /// The accessory called `name` if it exists and the caller may use it; otherwise answers
    /// `unknown device` (1001) and returns nil. One the caller may not use answers exactly as
    /// one that does not exist (same code, same message): its name is not to be learnt by
    /// probing.
    private func resolve(_ name: String, for caller: Caller) -> Accessory? {
        guard let a = lookUp(name), a.access.allows(caller.origin) else {
            caller.fail(.unknownDevice(name))
            return nil
        }
        return a
    }

    /// ``resolve(_:for:)`` for a method whose accessory is optional: true if none is named or
    /// the caller may use the one named (else it has been answered).
    private func mayName(_ name: String?, _ caller: Caller) -> Bool {
        guard let name else { return true }
        return resolve(name, for: caller) != nil
    }
}

/// Who sent a request and under which id: how a method's function answers it, once.
///
/// Threading: a value. Device loop.
struct Caller {
    let id: RequestID
    let origin: any RequestOrigin

    func succeed(_ result: some JSONEncodable & Sendable) { origin.respond(id: id, result: .success(result)) }
    func fail(_ error: AccessoryError) { fail(error.rpcError) }
    func fail(_ error: RPCError) { origin.respond(id: id, result: .failure(error)) }
}
