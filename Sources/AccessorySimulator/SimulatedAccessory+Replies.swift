import IOLoop
import SystemCalls

/// A reply waiting for its send time. Loop thread only (a value).
struct QueuedReply {
    var due: LoopInstant
    var bytes: [UInt8]
}

extension SimulatedAccessory {
    /// Handles readiness of the master. Loop thread only.
    func handle(_ events: FDEvents) {
        if events.contains(.readable) { readInput() }
        guard source != nil else { return }
        if events.contains(.writable) { flushOutbound() }
        if source != nil && !events.contains(.readable) && !events.isDisjoint(with: [.hangup, .error]) {
            // The simulator holds the slave open, so this means the pty broke; stop rather than
            // spin on a level-triggered hang-up.
            hangUpOnLoop(reappearAfter: configuration.faults.reappearAfter)
        }
    }

    private func readInput() {
        guard let fd = source?.fd else { return }
        let bytes: [UInt8]
        do throws(SyscallError) {
            guard let chunk = try FileIO.read(fd, max: 65_536) else { return }
            bytes = chunk
        } catch {
            hangUpOnLoop(reappearAfter: configuration.faults.reappearAfter)
            return
        }
        if bytes.isEmpty {
            hangUpOnLoop(reappearAfter: configuration.faults.reappearAfter)
            return
        }
        deliver(responder.receive(bytes[...], at: loop.now))
        armDueTimer()
    }

    /// Arms (or moves) the timer for the responder's own timed output. Loop thread only.
    func armDueTimer() {
        let due = responder.nextDue
        guard due != dueTimerAt || (due != nil && dueTimer == nil) else { return }
        dueTimer?.cancel()
        dueTimer = nil
        dueTimerAt = due
        guard let due, source != nil else { return }
        dueTimer = loop.scheduleTimer(at: due, repeating: nil, modes: [.common]) { [self] in
            dueTimer = nil
            dueTimerAt = nil
            guard source != nil else { return }
            deliver(responder.due(at: loop.now))
            armDueTimer()
        }
    }

    /// The personality's periodic output; skipped while nobody reads the slave. Loop thread only.
    func tick() {
        guard source != nil else { return }
        let outputs = responder.tick()
        let unread = (try? Termios.inputQueued(slaveHoldFD)) ?? 0
        if unread > Self.periodicBacklogLimit || outbound.count > Self.periodicBacklogLimit { return }
        deliver(outputs)
    }

    /// Sends outputs in order, applying the fault switches to replies. Stops at a hang-up. The
    /// bytes of one batch leave in as few writes as the pty allows.
    func deliver(_ outputs: [Output]) {
        let before = replyCount
        for output in outputs {
            guard source != nil else { break }
            switch output.kind {
            case .unsolicited:
                write(output.bytes)
            case .reply:
                reply(output)
            }
        }
        if replyCount != before {
            let (k, added) = (replyCount, replyCount - before)
            statusBox.withLock {
                $0.replies = k
                $0.totalReplies += added
            }
        }
        flushOutbound()
    }

    private func reply(_ output: Output) {
        replyCount += 1
        let k = replyCount
        let faults = configuration.faults
        let draw = faults.garbageProbability > 0 ? rng.unit() : 1
        switch faults.fate(ofReply: k, draw: draw) {
        case .hangUp:
            hangUpOnLoop(reappearAfter: faults.reappearAfter)
        case .drop:
            return
        case .send(let garbage, let late):
            let bytes = garbage ? garble(output.bytes) : output.bytes
            let delay = configuration.responseDelay + output.delay + late
            if let pause = configuration.splitReplies, bytes.count >= 2 {
                // One frame in two writes: the reader must put it back together.
                queue(Array(bytes[..<(bytes.count / 2)]), after: delay)
                queue(Array(bytes[(bytes.count / 2)...]), after: delay + pause)
            } else {
                queue(bytes, after: delay)
            }
        }
    }

    /// `bytes` with every byte that is not structural replaced by a random non-structural byte
    /// (and never equal to the original reply when anything could be replaced).
    func garble(_ bytes: [UInt8]) -> [UInt8] {
        let keep = responder.structuralBytes
        var out = bytes
        for i in out.indices where !keep.contains(out[i]) {
            var r: UInt8
            repeat { r = UInt8(truncatingIfNeeded: rng.next()) } while keep.contains(r)
            out[i] = r
        }
        if out == bytes, let i = out.indices.first(where: { !keep.contains(out[$0]) }) {
            repeat { out[i] &+= 1 } while keep.contains(out[i])
        }
        return out
    }

    /// Sends `bytes` after `delay`, but never before a reply queued earlier.
    private func queue(_ bytes: [UInt8], after delay: Duration) {
        if delay <= .zero && replyQueue.isEmpty {
            write(bytes)
            return
        }
        var due = loop.now + delay
        if let last = replyQueue.last, last.due > due { due = last.due }
        replyQueue.append(QueuedReply(due: due, bytes: bytes))
        if replyTimer == nil { armReplyTimer() }
    }

    private func armReplyTimer() {
        guard let head = replyQueue.first else { return }
        replyTimer = loop.scheduleTimer(at: head.due, repeating: nil, modes: [.common]) { [self] in
            replyTimer = nil
            let now = loop.now
            while let first = replyQueue.first, first.due <= now, source != nil {
                replyQueue.removeFirst()
                write(first.bytes)
            }
            flushOutbound()
            if source != nil { armReplyTimer() }
        }
    }

    /// Queues bytes for the client, behind any it has not taken yet; the caller flushes.
    /// Loop thread only.
    func write(_ bytes: [UInt8]) {
        guard !bytes.isEmpty, source != nil else { return }
        outbound.append(bytes)
    }

    /// Writes queued output; watches for writability while some remains, and stops reading
    /// input while too much is queued (back-pressure on the client). Loop thread only.
    func flushOutbound() {
        guard let source, !outbound.isEmpty || source.interest != .readable else { return }
        let done: Bool
        do throws(SyscallError) {
            done = try outbound.flush(to: source.fd)
        } catch {
            hangUpOnLoop(reappearAfter: configuration.faults.reappearAfter)
            return
        }
        var interest: FDInterest = source.interest
        if done { interest.remove(.writable) } else { interest.insert(.writable) }
        if outbound.count > Self.pauseReadingAbove {
            interest.remove(.readable)
        } else if outbound.count < Self.resumeReadingBelow {
            interest.insert(.readable)
        }
        source.setInterest(interest)
    }
}
