import AccessorySimulator
import AccessoryTestSupport
import Testing

/// The fault switches, driven through the pty slave.
///
/// Threading: each test runs on its test thread and owns a spawned loop, its accessory and its pty.
@Suite struct FaultTests {
    static func echo(_ faults: FaultSwitches, link: String? = nil) -> SimulatorConfiguration {
        SimulatorConfiguration(personality: .echo, faults: faults, linkPath: link, seed: 7)
    }

    @Test func lateRepliesArriveAfterTheClientsTimeout() throws {
        try withSimulator(Self.echo(FaultSwitches(lateBy: .milliseconds(400), lateEvery: 2))) { sim, _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            try client.write("one\n")
            #expect(try client.read(through: "one\n", seconds: 2) == "one\n")
            try client.write("two\n")
            // A client with a 200 ms timeout would give up here…
            #expect(client.drain(seconds: 0.2).isEmpty)
            // …and a reply queued meanwhile waits behind the late one.
            try client.write("three\n")
            #expect(try client.read(through: "three\n", seconds: 2) == "two\nthree\n")
        }
    }

    @Test func everyNthReplyIsGarbageOfTheSameShape() throws {
        try withSimulator(Self.echo(FaultSwitches(garbageEvery: 2))) { sim, _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            try client.write("hello\n")
            #expect(try client.read(through: "\n") == "hello\n")
            try client.write("hello\n")
            let garbage = try client.read(count: 6)
            #expect(garbage.count == 6 && garbage.last == 0x0A)
            #expect(garbage != Array("hello\n".utf8))
            #expect(!garbage.dropLast().contains(0x0A))
            try client.write("again\n")
            #expect(try client.read(through: "\n") == "again\n")
        }
    }

    @Test func garbageByProbability() throws {
        try withSimulator(Self.echo(FaultSwitches(garbageProbability: 1))) { sim, _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            for _ in 0..<3 {
                try client.write("abc\n")
                let reply = try client.read(count: 4)
                #expect(reply != Array("abc\n".utf8) && reply.last == 0x0A)
            }
        }
    }

    @Test func garbageKeepsFramesForFramedPersonalities() throws {
        let c = SimulatorConfiguration(personality: .framed(.cobs), faults: FaultSwitches(garbageEvery: 1))
        try withSimulator(c) { sim, _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            let encoded = COBSCodec.encode([1, 2, 3, 4])
            try client.write(encoded)
            let reply = try client.read { $0.last == 0 }
            #expect(reply.count == encoded.count && reply != encoded)
        }
    }

    @Test func everyNthReplyIsDropped() throws {
        try withSimulator(Self.echo(FaultSwitches(dropEvery: 2))) { sim, _ in
            let client = try SlaveClient(path: sim.currentSlavePath!)
            try client.write("1\n")
            #expect(try client.read(through: "\n") == "1\n")
            try client.write("2\n")
            #expect(client.drain(seconds: 0.15).isEmpty)
            try client.write("3\n")
            #expect(try client.read(through: "\n") == "3\n")
            #expect(sim.status.replies == 3)
        }
    }

    @Test func hangupAfterNRequestsClosesTheMaster() throws {
        let folder = try TemporaryFolder()
        let link = folder.file("dev")
        try withSimulator(Self.echo(FaultSwitches(hangupAfter: 2), link: link)) { sim, events in
            let path = sim.currentSlavePath!
            #expect(linkTarget(link) == path)
            let client = try SlaveClient(path: path)
            for word in ["a", "b"] {
                try client.write(word + "\n")
                #expect(try client.read(through: "\n") == word + "\n")
            }
            try client.write("c\n")
            let ending = client.waitForEnding()
            #expect(ending == .endOfFile || ending == .error(.ioError))
            #expect(client.sawHangup)
            #expect(throws: (any Error).self) { try client.write("d\n") }
            // udev removes the link of a device that went away.
            #expect(Wait.until(seconds: 5) { sim.currentSlavePath == nil && linkTarget(link) == nil })
            #expect(events.value == [.appeared(slavePath: path), .hungUp(reappearing: false)])
        }
    }

    @Test func reappearOpensANewPtyAndFlipsTheLink() throws {
        let folder = try TemporaryFolder()
        let link = folder.file("dev")
        let faults = FaultSwitches(hangupAfter: 1, reappearAfter: .milliseconds(150))
        try withSimulator(Self.echo(faults, link: link)) { sim, events in
            let first = try SlaveClient(path: link)
            try first.write("x\n")
            #expect(try first.read(through: "\n") == "x\n")
            try first.write("y\n")
            #expect(first.waitForEnding() != nil)
            #expect(Wait.until(seconds: 5) { linkTarget(link) == nil })
            #expect(Wait.until(seconds: 5) { sim.status.appearances == 2 && linkTarget(link) != nil })
            let newPath = try #require(sim.currentSlavePath)
            #expect(linkTarget(link) == newPath)
            // The new slave works, through the link, and the reply count started over.
            let second = try SlaveClient(path: link)
            try second.write("z\n")
            #expect(try second.read(through: "\n") == "z\n")
            #expect(sim.status.replies == 1)
            let seen = events.value
            #expect(seen.count == 3)
            #expect(seen.dropFirst().elementsEqual([.hungUp(reappearing: true), .appeared(slavePath: newPath)]))
        }
    }

    @Test func hangUpOnRequestCanKeepADanglingLink() throws {
        let folder = try TemporaryFolder()
        let link = folder.file("dev")
        var c = Self.echo(FaultSwitches(), link: link)
        c.keepLinkWhileGone = true
        try withSimulator(c) { sim, events in
            let oldPath = sim.currentSlavePath!
            let client = try SlaveClient(path: link)
            sim.hangUp(reappearAfter: .milliseconds(300))
            #expect(client.waitForEnding() != nil)
            // Gone, but the link still names the old slave…
            #expect(linkTarget(link) == oldPath)
            // …until it flips to the new one.
            #expect(Wait.until(seconds: 5) { sim.status.appearances == 2 })
            #expect(linkTarget(link) == sim.currentSlavePath)
            let again = try SlaveClient(path: link)
            try again.write("ok\n")
            #expect(try again.read(through: "\n") == "ok\n")
            #expect(events.value.count == 3)
        }
    }
}
