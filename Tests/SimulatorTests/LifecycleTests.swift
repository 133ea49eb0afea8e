import AccessorySimulator
import AccessoryTestSupport
import Glibc
import IOLoop
import SystemCalls
import Testing

/// Starting, stopping, cost when idle, back-pressure and many accessories in one loop.
///
/// Threading: each test runs on its test thread and owns its spawned loop, accessories and ptys.
@Suite struct LifecycleTests {
    @Test func stopHangsUpAndRemovesTheLink() throws {
        let folder = try TemporaryFolder()
        let link = folder.file("echo")
        let loop = try IOLoop.spawn(name: "sim-stop")
        defer { loop.shutdown() }
        let events = Shared<[SimulatorEvent]>([])
        let sim = try SimulatedAccessory.start(SimulatorConfiguration(linkPath: link), on: loop) { e in
            events.mutate { $0.append(e) }
        }
        let client = try SlaveClient(path: link)
        try client.write("hi\n")
        #expect(try client.read(through: "\n") == "hi\n")
        sim.stop()
        let ending = client.waitForEnding()
        #expect(ending == .endOfFile || ending == .error(.ioError))
        #expect(Wait.until(seconds: 5) { sim.status.isStopped && linkTarget(link) == nil })
        sim.stop()
        sim.hangUp(reappearAfter: .zero)
        #expect(Wait.onLoop(loop) { true } == true)
        #expect(sim.status.appearances == 1 && sim.currentSlavePath == nil)
        #expect(events.value.count == 1)
    }

    @Test func startingOnTheLoopThreadAttachesAtOnce() throws {
        let loop = try IOLoop.spawn(name: "sim-onloop")
        defer { loop.shutdown() }
        let started = Wait.onLoop(loop) { () -> SimulatedAccessory? in
            try? SimulatedAccessory.start(SimulatorConfiguration(personality: .atModem), on: loop)
        }
        let sim = try #require(started.flatMap { $0 })
        defer { sim.stop() }
        let client = try SlaveClient(path: sim.currentSlavePath!)
        try client.write("AT\r")
        #expect(try client.read(through: "OK\r\n") == "\r\nOK\r\n")
    }

    @Test func anIdleAccessoryCostsNoLoopIterations() throws {
        let loop = try IOLoop.spawn(name: "sim-idle")
        defer { loop.shutdown() }
        let iterations = Shared(0)
        _ = Wait.onLoop(loop) {
            loop.addObserver(activities: .beforeWaiting) { _ in iterations.mutate { $0 += 1 } }
            return true
        }
        let sim = try SimulatedAccessory.start(SimulatorConfiguration(), on: loop)
        defer { sim.stop() }
        // A client comes, talks, and goes: the master must not be left reporting a hang-up.
        do {
            let client = try SlaveClient(path: sim.currentSlavePath!)
            try client.write("x\n")
            #expect(try client.read(through: "\n") == "x\n")
        }
        #expect(Wait.onLoop(loop) { true } == true)
        let before = iterations.value
        usleep(300_000)
        #expect(iterations.value - before <= 2, "the loop woke \(iterations.value - before) times while idle")
    }

    @Test func bulkEchoArrivesCompleteAndInOrderUnderBackPressure() throws {
        try withSimulator(SimulatorConfiguration(terminator: .none)) { sim, _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            // A pattern that repeats only every 64 KiB (so lost or reordered chunks show).
            let payload = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &+ $0 >> 8 &* 7 &+ $0 >> 16) }
            // Write everything before reading anything: the simulator must stop reading rather
            // than buffer without bound, and resume as the client drains.
            var sent = 0
            var received: [UInt8] = []
            let deadline = SlaveClient.now() + 20
            while received.count < payload.count, SlaveClient.now() < deadline {
                if sent < payload.count {
                    let n = min(4096, payload.count - sent)
                    let w = try client.writeSome(payload[sent..<(sent + n)])
                    sent += w
                    if w > 0 { continue }
                }
                received += client.readAvailable(milliseconds: 5)
            }
            #expect(received.count == payload.count)
            #expect(received == payload)
        }
    }

    @Test func twoHundredFiftySixIdleAccessoriesShareOneLoop() throws {
        let folder = try TemporaryFolder()
        let loop = try IOLoop.spawn(name: "sim-many")
        defer { loop.shutdown() }
        var sims: [SimulatedAccessory] = []
        defer { for s in sims { s.stop() } }
        for i in 0..<256 {
            var c = SimulatorConfiguration(name: "dev\(i)", linkPath: folder.file("dev\(i)"))
            c.personality = i % 2 == 0 ? .echo : .atModem
            sims.append(try SimulatedAccessory.start(c, on: loop))
        }
        #expect(Set(sims.compactMap(\.currentSlavePath)).count == 256)
        for i in [0, 1, 128, 255] {
            let client = try SlaveClient(path: folder.path + "/dev\(i)")
            if i % 2 == 0 {
                try client.write("ping\n")
                #expect(try client.read(through: "\n") == "ping\n")
            } else {
                try client.write("AT\r")
                #expect(try client.read(through: "OK\r\n") == "\r\nOK\r\n")
            }
        }
        for s in sims { s.stop() }
        #expect(Wait.until(seconds: 10) { (0..<256).allSatisfy { linkTarget(folder.path + "/dev\($0)") == nil } })
    }

    @Test func aLinkInAMissingFolderIsAClearError() throws {
        let loop = try IOLoop.spawn(name: "sim-nolink")
        defer { loop.shutdown() }
        let c = SimulatorConfiguration(linkPath: "/nonexistent-folder/dev")
        #expect {
            _ = try SimulatedAccessory.start(c, on: loop)
        } throws: { error in
            guard case .link(let path, let e) = error as? SimulatorError else { return false }
            return path == "/nonexistent-folder/dev" && e.errno == .noSuchFileOrDirectory
        }
    }

    @Test func invalidConfigurationsAreRejected() throws {
        let loop = try IOLoop.spawn(name: "sim-invalid")
        defer { loop.shutdown() }
        for c in [
            SimulatorConfiguration(name: "two words"),
            SimulatorConfiguration(faults: FaultSwitches(dropEvery: 0)),
            SimulatorConfiguration(faults: FaultSwitches(garbageProbability: 2)),
            SimulatorConfiguration(unsolicitedInterval: .zero),
        ] {
            #expect(throws: SimulatorError.self) { try SimulatedAccessory.start(c, on: loop) }
        }
    }
}
