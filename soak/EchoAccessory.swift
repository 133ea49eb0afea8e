import Glibc
import IOLoop
import SystemCalls

/// One echo accessory the soak serves itself on a pty, so that it controls unplug and replug
/// exactly: unplug closes the master (the daemon's slave sees `EPOLLHUP` and end of file) and
/// removes the link; replug opens a new pty and publishes its slave under the same link name,
/// made beside it and renamed over it as udev does.
///
/// It echoes every line, holds the echo of a slow (`S`) line back by `Options.slowDelay`, and sends
/// spontaneous `R` lines now and then. Lines leave in order: a held-back echo delays what follows.
///
/// Threading: the soak's loop thread only.
final class EchoAccessory {
    let number: Int
    let name: String
    let link: String
    private unowned let world: SoakWorld
    private var loop: IOLoop { world.loop }
    private var random: SoakRandom { world.random }
    private var report: Report { world.report }

    private var source: FDSource?
    private var slaveHold: OwnedFD?
    private var slavePath: String?
    private var inbound: [UInt8] = []
    /// Lines to send, each not before its instant, and how much of the head has been sent.
    private var outbound: [(bytes: [UInt8], notBefore: LoopInstant)] = []
    private var headSent = 0
    private var flushTimer: LoopTimer?
    private var spontaneousTimer: LoopTimer?
    /// Spontaneous lines sent so far (their numbers are 0..<spontaneousCount).
    private(set) var spontaneousCount = 0

    var isPlugged: Bool { source != nil }

    init(number: Int, folder: String, world: SoakWorld) {
        self.number = number
        name = "echo\(number)"
        link = folder + "/echo\(number)"
        self.world = world
    }

    /// Opens a new pty, serves it and publishes its link. No-op while plugged.
    func plug() throws(SyscallError) {
        guard source == nil else { return }
        let pair = try PseudoTerminal.open()
        let path = pair.slavePath
        let master = pair.master
        // Holding the slave open keeps the master readable (no EIO) while the daemon has it closed.
        let hold = try FileIO.open(path, flags: O_RDWR | O_NOCTTY | O_NONBLOCK)
        try PseudoTerminal.makeRaw(hold.rawValue)
        source = try loop.addSource(owning: master, interest: .readable) { [unowned self] events in
            handle(events)
        }
        slaveHold = consume hold
        slavePath = path
        let temporary = "\(link).tmp-\(random.next() % 1_000_000)"
        try FileIO.symlink(target: path, at: temporary)
        try FileIO.rename(temporary, to: link)
        scheduleSpontaneous()
    }

    /// Removes the link and closes the pty: pending lines are lost, as on a real unplug.
    func unplug() {
        guard let source else { return }
        if let slavePath, (try? FileIO.readLink(link)) == slavePath { try? FileIO.unlink(link) }
        source.cancel()
        self.source = nil
        slaveHold.take()?.close()
        slavePath = nil
        inbound.removeAll()
        outbound.removeAll()
        headSent = 0
        flushTimer?.cancel()
        flushTimer = nil
        spontaneousTimer?.cancel()
        spontaneousTimer = nil
    }

    private func handle(_ events: FDEvents) {
        guard let source else { return }
        if events.contains(.writable) { flush() }
        guard events.contains(.readable) || events.contains(.hangup) || events.contains(.error) else { return }
        do throws(SyscallError) {
            while let chunk = try FileIO.read(source.fd, max: 65_536), !chunk.isEmpty {
                inbound += chunk
            }
        } catch {
            report.violation("accessory \(name): reading its pty master failed: \(error)")
            unplug()
            return
        }
        while let newline = inbound.firstIndex(of: 0x0A) {
            let line = Array(inbound[...newline])
            inbound.removeSubrange(...newline)
            let kind = Payload.kind(of: line)
            if kind == .slow || kind == .transact { world.traces[Array(line.dropLast())]?.arrivedAt = Clock.seconds() }
            outbound.append((line, loop.now + (kind == .slow ? world.options.slowDelay : .zero)))
        }
        flush()
    }

    /// Writes the lines that are due, in order; waits for writability or for the head's instant.
    private func flush() {
        guard let source else { return }
        flushTimer?.cancel()
        flushTimer = nil
        let now = loop.now
        while let head = outbound.first {
            if head.notBefore > now {
                flushTimer = loop.scheduleTimer(after: head.notBefore - now) { [unowned self] in flush() }
                break
            }
            let result: IOResult<Int>
            do throws(SyscallError) {
                result = try FileIO.write(source.fd, Array(head.bytes[headSent...]))
            } catch {
                report.violation("accessory \(name): writing its pty master failed: \(error)")
                unplug()
                return
            }
            if case .processed(let count) = result { headSent += count }
            guard headSent == head.bytes.count else {
                source.setInterest([.readable, .writable])
                return
            }
            headSent = 0
            outbound.removeFirst()
            if let kind = Payload.kind(of: head.bytes), kind == .slow || kind == .transact {
                world.traces[Array(head.bytes.dropLast())]?.echoedAt = Clock.seconds()
            }
        }
        source.setInterest(.readable)
    }

    private func scheduleSpontaneous() {
        spontaneousTimer = loop.scheduleTimer(after: .milliseconds(random.int(world.options.spontaneousEveryMs))) {
            [unowned self] in
            outbound.append((Payload.spontaneous(device: number, n: spontaneousCount) + [0x0A], loop.now))
            spontaneousCount += 1
            flush()
            scheduleSpontaneous()
        }
    }
}
