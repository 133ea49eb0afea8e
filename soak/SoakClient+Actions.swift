import ControlProtocol

extension SoakClient {
    /// One random step: mostly transactions, some writes and reads, subscriptions, locks,
    /// unlocks, and cancels of this connection's own outstanding requests.
    func act() {
        guard isOpen, !isDraining else { return }
        let random = world.random
        let options = world.options
        // While holding a lock: use it a little, then let go (or leave it to the lease).
        if let device = holding.first, random.chance(0.3) {
            holding.remove(device)
            send(.unlock(device: device), .unlock(DeviceParams(device: world.deviceName(device))))
            return
        }
        let device =
            holding.first.flatMap { random.chance(0.7) ? $0 : nil }
            ?? random.int(0...(world.accessories.count - 1))
        let roll = random.int(0...99)
        switch roll {
        case 0..<55: transact(device)
        case 55..<67: write(device)
        case 67..<75:
            let maxFrames = random.int(1...3)
            send(
                .read(device: device, maxFrames: maxFrames),
                .read(
                    ReadParams(
                        device: world.deviceName(device),
                        timeoutMs: Int64(random.int(20...200)),
                        maxFrames: Int64(maxFrames)
                    )
                )
            )
        case 75..<79:
            subscribed = true
            let one = random.chance(0.9) ? world.deviceName(device) : nil  // all devices: many notifications
            send(.subscribe, .subscribe(SubscriptionParams(device: one)))
        case 79..<81:
            subscribed = false
            send(.unsubscribe, .unsubscribe(SubscriptionParams()))
        case 81..<85:
            send(
                .lock(device: device),
                .lock(
                    LockParams(
                        device: world.deviceName(device),
                        timeoutMs: Int64(random.int(50...400)),
                        leaseMs: Int64(random.int(options.leaseMs))
                    )
                )
            )
        default:
            cancelSomething()
        }
    }

    private func transact(_ device: Int) {
        let random = world.random
        let slow = random.chance(world.options.slowFraction)
        let id = peekID
        let payload = Payload.make(slow ? .slow : .transact, client: number, id: id, random: random.next())
        let params = TransferParams(
            device: world.deviceName(device),
            data: payload,
            // A slow line is answered after `slowTimeoutMs` (its echo is held back longer).
            timeoutMs: slow ? Int64(world.options.slowTimeoutMs) : nil,
            waitMs: random.chance(0.1) ? Int64(random.int(100...500)) : nil
        )
        send(.transact(device: device, payload: payload, slow: slow), .transact(params))
    }

    private func write(_ device: Int) {
        let random = world.random
        let payload = Payload.make(.write, client: number, id: peekID, random: random.next())
        world.written[device].insert(payload)
        let params = TransferParams(
            device: world.deviceName(device),
            data: payload,
            waitMs: random.chance(0.1) ? Int64(random.int(100...500)) : nil
        )
        send(.write(device: device, payload: payload), .write(params))
    }

    /// Cancels one of this connection's outstanding queued requests, or (now and then) one that
    /// was already answered, which the daemon must report as `cancelled: false`.
    private func cancelSomething() {
        let candidates = pending.filter { $0.value.kind.isCancellable && $0.value.cancel == .none }.map(\.key)
        let target: Int64
        if let chosen = candidates.isEmpty ? nil : world.random.pick(candidates) {
            target = chosen
            pending[target]?.cancel = .requested
        } else if let old = answered.first, world.random.chance(0.2) {
            target = old
        } else {
            return
        }
        send(.cancel(target: target), .cancel(CancelParams(id: .int(target))))
    }
}
