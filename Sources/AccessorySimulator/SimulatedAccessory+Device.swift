import Glibc
import IOLoop
import SystemCalls

/// A freshly opened pty: the master, the simulator's own slave descriptor, and the slave path.
/// Any thread, one owner at a time.
struct OpenedPty: ~Copyable {
    var master: OwnedFD
    var slaveHold: OwnedFD
    let slavePath: String
}

extension SimulatedAccessory {
    /// Opens a pty pair, holds the slave open in raw mode, and publishes the link. Any thread.
    func openDevice() throws(SimulatorError) -> OpenedPty {
        let device: OpenedPty
        do throws(SyscallError) {
            let pair = try PseudoTerminal.open()
            let path = pair.slavePath
            let master = pair.master
            let hold = try FileIO.open(path, flags: O_RDWR | O_NOCTTY | O_NONBLOCK)
            try PseudoTerminal.makeRaw(hold.rawValue)
            device = OpenedPty(master: master, slaveHold: hold, slavePath: path)
        } catch {
            throw .system(error)
        }
        if let link = configuration.linkPath {
            do throws(SyscallError) {
                try DeviceLink.publish(device.slavePath, at: link)
            } catch {
                throw .link(path: link, error)
            }
        }
        return device
    }

    /// Starts serving an opened pty: registers the master, starts the personality's timer and
    /// reports the appearance. Loop thread only.
    func attach(_ device: consuming OpenedPty) {
        loop.preconditionInLoop()
        let path = device.slavePath
        slaveHoldFD = device.slaveHold.rawValue
        slaveHold = .some(device.slaveHold)
        slavePath = path
        responder = makeResponder(for: configuration)
        replyCount = 0
        do throws(SyscallError) {
            source = try loop.addSource(owning: device.master, interest: .readable) { [self] events in
                handle(events)
            }
        } catch {
            // Registration fails only when the kernel is out of memory or descriptors; behave as
            // a device that vanished.
            vanish(reappearAfter: configuration.faults.reappearAfter)
            return
        }
        if let interval = responder.tickInterval {
            tickTimer = loop.scheduleTimer(after: interval, repeating: interval) { [self] in tick() }
        }
        responder.started(at: loop.now)
        armDueTimer()
        statusBox.withLock {
            $0.slavePath = path
            $0.replies = 0
        }
        emit(.appeared(slavePath: path))
    }

    /// Closes the pty (master first, so the client sees the hang-up) and everything tied to it,
    /// and removes the link unless configured to keep it. Loop thread only.
    func detach() {
        source?.cancel()
        source = nil
        slaveHold.take()?.close()
        slaveHoldFD = -1
        tickTimer?.cancel()
        tickTimer = nil
        dueTimer?.cancel()
        dueTimer = nil
        dueTimerAt = nil
        replyTimer?.cancel()
        replyTimer = nil
        replyQueue.removeAll()
        outbound.removeAll()
        if let path = slavePath, !configuration.keepLinkWhileGone || isStopped { unpublish(path) }
        slavePath = nil
    }

    /// Removes the link if it still points at `path`. Any thread.
    func unpublish(_ path: String) {
        if let link = configuration.linkPath { DeviceLink.remove(link, ifPointingAt: path) }
    }

    /// Hangs up and, if asked, schedules the reappearance. Loop thread only.
    func hangUpOnLoop(reappearAfter: Duration?) {
        guard !isStopped, source != nil || pendingDevice != nil else { return }
        if let d = pendingDevice.take() { attach(d) }
        vanish(reappearAfter: reappearAfter)
    }

    /// Closes everything, reports the hang-up and schedules the reappearance. Loop thread only.
    private func vanish(reappearAfter: Duration?) {
        detach()
        statusBox.withLock { $0.slavePath = nil }
        emit(.hungUp(reappearing: reappearAfter != nil))
        if let delay = reappearAfter {
            reappearTimer = loop.scheduleTimer(after: delay) { [self] in reappear() }
        }
    }

    /// Opens a new pty and republishes; retries every second while that fails. Loop thread only.
    func reappear() {
        reappearTimer = nil
        guard !isStopped, source == nil else { return }
        do throws(SimulatorError) {
            let device = try openDevice()
            attach(device)
            // Counted once the new slave's path is in the status too: a reader that sees the new
            // appearance also sees where it is (openDevice already republished the link).
            statusBox.withLock { $0.appearances += 1 }
        } catch {
            reappearTimer = loop.scheduleTimer(after: .seconds(1)) { [self] in reappear() }
        }
    }
}
