import AccessoryTestSupport
import ControlProtocol
import Glibc
import SystemCalls
import Testing

/// Listeners across SIGHUP and in `--check-config`: an unchanged listener keeps its connection;
/// a changed one is closed and made again; a reload adding a port another program holds is
/// rejected and the rest stands (`--check-config` says why); a non-loopback address and two
/// listeners on one port are configuration errors.
///
/// Threading: each test runs on its own test thread and owns its scenario.
@Suite struct NetworkReloadTests {
    static func listener(_ port: UInt16) -> String {
        "network: [{listen: \"127.0.0.1:\(port)\", protocol: raw}]"
    }

    @Test func anUnchangedListenerKeepsItsConnectionAcrossAReload() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        try s.simulator("other")
        let port = try NetworkListenerTests.freePort()
        try s.startDaemon(accessories: [s.lineAccessory("echo", Self.listener(port)), s.lineAccessory("other")])
        let client = try InetSocket.connect(to: InetEndpoint(address: [127, 0, 0, 1], port: port))
        do { try NetworkListenerTests.echo(client.rawValue, "before\n") } catch {
            Issue.record("\(error): \(s.log)")
        }

        // Another accessory changes; this one and its listener do not.
        _ = try s.directory.write(
            "accessoryd.yaml",
            s.configuration(accessories: [
                s.lineAccessory("echo", Self.listener(port)),
                s.lineAccessory("other", "response: {timeout_ms: 1500}"),
            ])
        )
        try ChildProcess.signal(s.daemon!.pid, SIGHUP)
        try waitForLog(s, "reload: ")
        try NetworkListenerTests.echo(client.rawValue, "after\n")

        // Now the listener moves: its connection is closed, the new port serves.
        let moved = try NetworkListenerTests.freePort()
        _ = try s.directory.write(
            "accessoryd.yaml",
            s.configuration(accessories: [s.lineAccessory("echo", Self.listener(moved)), s.lineAccessory("other")])
        )
        try ChildProcess.signal(s.daemon!.pid, SIGHUP)
        let said = try NetworkListenerTests.readUntilClosed(client.rawValue, seconds: 10)
        #expect(said.isEmpty, "closed without a word: \(said)")
        try waitForLog(s, "listener 127.0.0.1:\(moved) of echo: raw")
        let again = try InetSocket.connect(to: InetEndpoint(address: [127, 0, 0, 1], port: moved))
        try NetworkListenerTests.echo(again.rawValue, "moved\n")
        client.close()
    }

    @Test func aReloadWithAPortInUseIsRejectedAndTheRestStands() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        let free = try NetworkListenerTests.freePort()
        try s.startDaemon(accessories: [s.lineAccessory("echo", Self.listener(free))])
        let client = try InetSocket.connect(to: InetEndpoint(address: [127, 0, 0, 1], port: free))
        try NetworkListenerTests.echo(client.rawValue, "served\n")
        // Another program holds a port; a reload adds a listener on it.
        let taken = try InetSocket.listening(on: InetEndpoint(address: [127, 0, 0, 1], port: 0))
        let busy = try InetSocket.localEnd(taken.rawValue).port
        _ = try s.directory.write(
            "accessoryd.yaml",
            s.configuration(accessories: [
                s.lineAccessory(
                    "echo",
                    "network: [{listen: \"127.0.0.1:\(free)\", protocol: raw}, "
                        + "{listen: \"127.0.0.1:\(busy)\", protocol: raw}]"
                )
            ])
        )
        try ChildProcess.signal(s.daemon!.pid, SIGHUP)
        try waitForLog(s, "rejected")
        #expect(s.log.contains("127.0.0.1:\(busy) is in use"), "\(s.log)")
        #expect(s.log.contains("pid \(getpid())"), "names who holds it: \(s.log)")
        // Nothing of the rejected configuration was made; the running listener serves on.
        try NetworkListenerTests.echo(client.rawValue, "still served\n")
        let status = try s.connect().result("device.status", Params.device("echo"))
        let listeners = status["listeners"]?.arrayValue ?? []
        #expect(listeners.count == 1, "\(status)")
        #expect(listeners.first?["connections"]?.arrayValue?.first?["session"]?.stringValue == "attached")
        #expect(listeners.first?["counters"]?["accepted"]?.intValue == 1, "\(listeners)")
        // And `--check-config` says the same of the file.
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let r = try ConfigTests.run(
            ["--check-config", "--config", s.directory.file("accessoryd.yaml")],
            in: folder,
            tag: "busy"
        )
        #expect(r.status == .exited(1), "\(r.stderr)")
        #expect(r.stderr.contains("accessories[0].network[1].listen: 127.0.0.1:\(busy) is in use"), "\(r.stderr)")
        taken.close()
        client.close()
    }

    @Test func aSecondDaemonDoesNotStartOnAPortTheFirstHoldsButCheckConfigTakesItAsItsOwn() throws {
        let s = try Scenario()
        defer { s.finish() }
        try s.simulator("echo")
        let port = try NetworkListenerTests.freePort()
        try s.startDaemon(accessories: [s.lineAccessory("echo", Self.listener(port))])
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = try folder.write(
            "second.yaml",
            """
            socket:
              path: \(folder.file("second.sock"))
            accessories:
              - name: other
                path: \(folder.file("no-such-tty"))
                \(Self.listener(port))

            """
        )
        // Another accessoryd's listener is another program's: this one does not start.
        let started = try ConfigTests.run(
            ["--config", path, "--runtime-dir", folder.file("run")],
            in: folder,
            tag: "second"
        )
        #expect(started.status == .exited(1), "\(started.stderr)")
        #expect(started.stderr.contains("127.0.0.1:\(port) is in use"), "\(started.stderr)")
        #expect(started.stderr.contains("(accessoryd)"), "\(started.stderr)")
        // `--check-config` checks a file for the daemon that runs: its listeners are the file's own.
        let checked = try ConfigTests.run(["--check-config", "--config", path], in: folder, tag: "check")
        #expect(checked.status == .exited(0), "\(checked.stderr)")
    }

    @Test func checkConfigRefusesANetworkAddressAndAClash() throws {
        let folder = try TemporaryDirectory()
        defer { folder.remove() }
        let path = try folder.write(
            "net.yaml",
            """
            socket:
              path: \(folder.file("d.sock"))
            accessories:
              - name: a
                path: /dev/ttyUSB0
                framing: {type: line}
                network: [{listen: "0.0.0.0:4001"}, {listen: "[::1]:4002", protocol: rfc2217, settings: locked}]
              - name: b
                path: /dev/ttyUSB1
                framing: {type: line}
                network: [{listen: "[::1]:4002", protocol: raw}, {listen: "127.0.0.1:99999"}]

            """
        )
        let r = try ConfigTests.run(["--check-config", "--config", path], in: folder, tag: "net")
        #expect(r.status == .exited(1))
        #expect(r.stderr.contains("0.0.0.0:4001 is not a loopback address"), "\(r.stderr)")
        #expect(r.stderr.contains("ssh -L"), "says how to reach it instead: \(r.stderr)")
        #expect(
            r.stderr.contains("[0:0:0:0:0:0:0:1]:4002 is already the address of a listener of accessory \"a\""),
            "\(r.stderr)"
        )
        #expect(r.stderr.contains("expected a port 1…65535, got \"99999\""), "\(r.stderr)")
        #expect(r.stdout.contains("3 error(s)"), "\(r.stdout)")
    }

    private func waitForLog(_ s: Scenario, _ text: String) throws {
        let deadline = Deadline(seconds: 10)
        while !s.log.contains(text) && !deadline.hasPassed { usleep(10_000) }
        if !s.log.contains(text) { throw HarnessError("the log never said \(text): \(s.log)") }
    }
}
