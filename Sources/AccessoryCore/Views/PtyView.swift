import AccessoryConfig
import ControlProtocol
import Glibc
import IOLoop
import SystemCalls
import Transports

/// A pty view of an accessory: a pseudo-terminal the daemon owns, published by a symbolic link
/// at a stable path, through which a program that only knows ttys (gpsd, picocom, a pyserial
/// script) takes part in the accessory's traffic as a client of its own (``ViewSettings/Mode``).
///
/// The daemon keeps the master, non-blocking, on the device loop, for the view's whole life:
/// unplugging or replugging the accessory, and programs opening and closing the slave, never
/// close or recreate the pty, so a program keeps its open file across them.
///
/// Whether a program has the slave open is the master's hang-up state: once the slave has been
/// opened and closed, the master reports `POLLHUP` until someone opens the slave again. (The
/// daemon opens the slave once at creation, to set its mode, owner and group, and closes it, so
/// the state is right from the start.) While nobody has it open, the master is not watched (a
/// hang-up is reported continuously): ``ViewOpenWatch`` reports the slave's opens, and
/// ``ViewSet`` also polls a few times a second; what the accessory sends meanwhile is not kept
/// for a later reader.
///
/// Device loop only (`@unchecked Sendable`: a ``RequestOrigin`` must be Sendable; every member
/// is used on the device loop).
final class PtyView: @unchecked Sendable {
    let accessoryName: String
    let settings: ViewSettings
    let link: ViewLink
    let clientID: UInt64
    let ownerID: UInt32
    let groupID: UInt32
    let connectedSinceMs: Int64
    let loop: IOLoop
    weak var registry: AccessoryRegistry?
    /// The slave's device path (`/dev/pts/N`), the link's target.
    let slavePath: String
    private var master: OwnedFD?
    var masterFD: CInt { master?.rawValue ?? -1 }
    /// Whether its pty was kept across a restart (taken from the descriptor store).
    let wasKept: Bool
    private var source: FDSource?

    /// Whether a program has the slave open, as last seen.
    private(set) var isOpen = false
    private(set) var isClosed = false
    var counters = ViewStatus.Counters()
    var output: ViewOutputBuffer
    /// Cuts a `shared` view's input into frames, made for the framing it was made with.
    var inputReader: FrameReader?
    var inputFraming: FramingSettings?
    /// `shared`: frames waiting for a place among the requests in flight.
    var pendingFrames: [[UInt8]] = []
    var requestsInFlight = 0
    /// Inside ``sendPendingFrames()``.
    var isSendingFrames = false
    var nextRequestID: Int64 = 1
    /// `exclusive`: the raw session, if any.
    var session: ExclusiveSession = .idle
    /// The raw session asked that the program's bytes wait (the device is behind).
    var rawPaused = false
    /// `exclusive` with `idle_ms`: ends the session after that long without a byte either way.
    var idle: IdleTimer?
    /// Whether the accessory was ready at the last look (its changes are logged and counted).
    var accessoryReady = false
    /// Said once per view: a `monitor` view discards what programs write.
    var discardLogged = false
    /// Said once until the accessory is back: frames are refused.
    var refusalLogged = false
    /// Said once until `access:` allows the view's owner again: it receives nothing.
    var accessDeniedLogged = false

    /// How many of a `shared` view's frames may be requests at once: more wait in order, and
    /// beyond that the program's bytes wait in the pty.
    static let maxRequestsInFlight = 4
    /// How long a view's request may wait for another client's lock before it is refused.
    static let lockWaitMs: Int64 = 5_000
    /// The most read from the program per readiness event.
    static let readChunk = 4_096

    /// What an `exclusive` view is doing. A value. Device loop only.
    enum ExclusiveSession {
        case idle
        /// The `attach` is sent; the program's first bytes wait for its answer.
        case attaching(id: Int64, pending: [UInt8])
        /// The raw session runs: the program's bytes go to `input`.
        case attached(input: @Sendable ([UInt8]) -> Void)

        var name: String {
            switch self {
            case .idle: "idle"
            case .attaching: "attaching"
            case .attached: "attached"
            }
        }
    }

    /// Makes the pty (or takes `keptMaster`, the master of this view's pty kept across a
    /// restart, so that a program with the slave open keeps its `/dev/pts/N`), sets the slave's
    /// owner, group and mode and raw line settings, and publishes the link. On failure nothing is
    /// left behind (the master is closed, no link is made).
    init(
        accessoryName: String,
        settings: ViewSettings,
        linkPath: String,
        clientID: UInt64,
        owner: UInt32,
        group: UInt32,
        loop: IOLoop,
        registry: AccessoryRegistry,
        keptMaster: CInt? = nil
    ) throws(ViewError) {
        let kept = keptMaster.map { OwnedFD(adopting: $0) }
        self.accessoryName = accessoryName
        self.settings = settings
        self.link = ViewLink(path: linkPath)
        self.clientID = clientID
        self.ownerID = owner
        self.groupID = group
        self.loop = loop
        self.registry = registry
        self.wasKept = keptMaster != nil
        self.connectedSinceMs = WallClock.microsecondsSinceEpoch() / 1000
        self.output = ViewOutputBuffer(limit: settings.bufferBytes)
        // Checked before anything is made: a path that is taken stays as it is.
        _ = try link.inspect()
        let masterFD: OwnedFD
        if let kept {
            do { slavePath = try PseudoTerminal.slavePath(ofMaster: kept.rawValue) } catch {
                throw .system("cannot find the slave of the pty kept for the view \(linkPath)", error)
            }
            masterFD = kept
        } else {
            let pair: PseudoTerminalPair
            do { pair = try PseudoTerminal.open() } catch {
                throw .system("cannot open a pty for the view \(linkPath)", error)
            }
            slavePath = pair.slavePath
            masterFD = pair.master
        }
        try Self.prepareSlave(slavePath, owner: owner, group: group, perm: settings.effectivePerm, for: linkPath)
        try link.publish(target: slavePath)
        master = consume masterFD
    }

    /// Raw line settings, owner, group and mode on the slave, through a descriptor of its own
    /// (never the path again); closing it leaves the master reporting a hang-up until a program
    /// opens the slave.
    private static func prepareSlave(
        _ path: String,
        owner: UInt32,
        group: UInt32,
        perm: UInt32,
        for linkPath: String
    ) throws(ViewError) {
        let slave: OwnedFD
        do { slave = try PseudoTerminal.openSlave(path) } catch {
            throw .system("cannot open the pty \(path) for the view \(linkPath)", error)
        }
        do {
            try Termios.set(slave.rawValue, Termios.raw(try Termios.get(slave.rawValue)))
        } catch {
            throw .system("cannot set raw mode on the pty \(path) for the view \(linkPath)", error)
        }
        do { try FileIO.changeOwner(ofDescriptor: slave.rawValue, owner: owner, group: group) } catch {
            throw .system("cannot give the pty of the view \(linkPath) to uid \(owner), gid \(group)", error)
        }
        do { try FileIO.changeMode(ofDescriptor: slave.rawValue, to: perm) } catch {
            throw .system("cannot set mode \(String(perm, radix: 8)) on the pty of the view \(linkPath)", error)
        }
        slave.close()
    }

    /// Closes the view for good: its requests are withdrawn, its link removed (if still the
    /// daemon's), the pty closed. Device loop.
    func close(reason: String) {
        loop.assertInLoop()
        guard !isClosed else { return }
        isClosed = true
        idle?.stop()
        source?.cancel()
        source = nil
        registry?.releaseEverything(of: self)
        registry?.clients[clientID] = nil
        link.remove(target: slavePath)
        output.discardAll()
        inputReader = nil
        master.take()?.close()
        registry?.log(.info, "view \(link.path) of \(accessoryName) closed (\(reason))")
    }

    // MARK: - Open and closed

    /// Polled while nobody has the view open: true when a program opened it (now watched).
    /// Device loop.
    func checkOpened() -> Bool {
        loop.assertInLoop()
        guard !isClosed, !isOpen, let fd = master?.rawValue else { return false }
        guard let hungUp = try? PseudoTerminal.isHungUp(master: fd), !hungUp else { return false }
        isOpen = true
        counters.opens += 1
        registry?.log(.info, "view \(link.path) of \(accessoryName): opened by a program")
        do {
            source = try loop.addSource(fd: fd, interest: .readable) { [weak self] events in
                self?.masterEvent(events)
            }
        } catch {
            registry?.log(.error, "view \(link.path): cannot watch its pty: \(error)")
        }
        updateInterest()
        return true
    }

    private func programClosed() {
        isOpen = false
        counters.closes += 1
        source?.cancel()
        source = nil
        counters.notOpenBytes += UInt64(output.discardAll())
        // What the program left unread would greet the next one: it is stale.
        if let fd = master?.rawValue { try? Termios.flush(fd, .output) }
        inputReader?.reset()
        pendingFrames.removeAll()
        registry?.log(.info, "view \(link.path) of \(accessoryName): closed by its program")
        if case .idle = session { return }
        // After the program's last bytes (sent to the device through `loop.perform`) are written.
        loop.perform { [weak self] in self?.endSession(reason: "its program closed the view") }
    }

    private func masterEvent(_ events: FDEvents) {
        loop.assertInLoop()
        guard !isClosed else { return }
        if events.contains(.readable) || events.contains(.hangup) {
            readFromProgram(draining: events.contains(.hangup))
        }
        guard isOpen else { return }
        if events.contains(.hangup) || events.contains(.error) {
            programClosed()
            return
        }
        if events.contains(.writable) { flushOutput() }
    }

    /// Reads what the program wrote: one chunk, or all of it when it hung up (what a program
    /// writes just before closing still counts).
    private func readFromProgram(draining: Bool) {
        guard let fd = master?.rawValue else { return }
        var budget = draining ? 64 << 10 : Self.readChunk
        while budget > 0 {
            guard let bytes = try? FileIO.read(fd, max: min(budget, Self.readChunk)), !bytes.isEmpty else { return }
            budget -= bytes.count
            counters.bytesFromProgram += UInt64(bytes.count)
            programWrote(bytes)
            if !draining { return }
        }
    }

    // MARK: - Toward the program

    /// Queues bytes for the program (nothing is kept while nobody has the view open). Device loop.
    func writeToProgram(_ bytes: [UInt8]) {
        guard isOpen else {
            counters.notOpenBytes += UInt64(bytes.count)
            return
        }
        counters.chunksToProgram += 1
        output.append(bytes)
        flushOutput()
    }

    private func flushOutput() {
        guard let fd = master?.rawValue else { return }
        let written = output.drain { slice in
            let r = slice.withUnsafeBytes { try? FileIO.write(fd, from: $0) }
            if case .processed(let n)? = r { return n }
            return 0
        }
        counters.bytesToProgram += UInt64(written)
        updateInterest()
    }

    /// Reads while the program's bytes can go somewhere; listens for room while output waits.
    func updateInterest() {
        guard let source, source.isValid else { return }
        var interest: FDInterest = []
        if acceptsInput { interest.insert(.readable) }
        if !output.isEmpty { interest.insert(.writable) }
        source.setInterest(interest)
    }

    private var acceptsInput: Bool {
        switch settings.mode {
        case .monitor: return true
        case .shared: return requestsInFlight < Self.maxRequestsInFlight
        case .exclusive:
            if case .attaching = session { return false }
            return !rawPaused
        }
    }
}
