import AccessoryClient
import AccessoryTestSupport
import JSONCodec
import SystemCalls
import Testing

@testable import ControlProtocol

/// Requests and responses matched by id, notifications beside them.
///
/// Threading: each test runs on its own task with its own fake daemon.
@Suite struct MatchingTests {
    /// `{frames:[{…payload…}], elapsed_ms:1}`: an echo.
    static func echo(_ bytes: [UInt8]) -> JSONValue {
        ["frames": [Frame(bytes).json], "elapsed_ms": 1]
    }

    @Test func responsesAreMatchedByIDWhenTheDaemonAnswersInReverseOrder() async throws {
        let held = Locked<[(RequestID, [UInt8], FakePeer)]>([])
        let daemon = try FakeDaemon { request, peer in
            guard case .transact(let params) = request.method else { return }
            let all = held.withLock { held -> [(RequestID, [UInt8], FakePeer)]? in
                held.append((request.id, params.data, peer))
                return held.count == 5 ? held : nil
            }
            for (id, data, peer) in (all ?? []).reversed() { peer.reply(id, Self.echo(data)) }
        }
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        defer { connection.close() }
        let answers = try await bounded {
            try await withThrowingTaskGroup(of: (String, [UInt8]).self) { group in
                for index in 0..<5 {
                    group.addTask {
                        let result = try await connection.transact(device: "echo", text: "ping \(index)")
                        return ("ping \(index)", result.frames.first?.bytes ?? [])
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(answers.count == 5)
        for (sent, received) in answers { #expect(String(decoding: received, as: UTF8.self) == sent) }
        let ids = daemon.requests.map(\.id)
        #expect(Set(ids).count == 5, "every request has its own id: \(ids)")
    }

    @Test func manyConcurrentCallsAnsweredInShuffledOrderEachGetTheirOwnAnswer() async throws {
        let count = 200
        let held = Locked<[(RequestID, [UInt8], FakePeer)]>([])
        let daemon = try FakeDaemon { request, peer in
            guard case .transact(let params) = request.method else { return }
            let all = held.withLock { held -> [(RequestID, [UInt8], FakePeer)]? in
                held.append((request.id, params.data, peer))
                return held.count == count ? held : nil
            }
            for (id, data, peer) in (all ?? []).shuffled() { peer.reply(id, Self.echo(data)) }
        }
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        defer { connection.close() }
        let mismatches = try await bounded(20) {
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for index in 0..<count {
                    group.addTask {
                        let payload = Array("payload-\(index)".utf8)
                        return try await connection.transact(device: "echo", data: payload).frames == [Frame(payload)]
                    }
                }
                return try await group.reduce(0) { $0 + ($1 ? 0 : 1) }
            }
        }
        #expect(mismatches == 0)
    }

    @Test func notificationsArriveOnEventsWhileACallIsInFlight() async throws {
        let heldTransact = Locked<(RequestID, FakePeer)?>(nil)
        let daemon = try FakeDaemon { request, peer in
            switch request.method {
            case .subscribe:
                peer.reply(request.id, JSONValue.object([:]))
            case .transact:
                heldTransact.withLock { $0 = (request.id, peer) }
                peer.notifyData("gps", Array("$GPGGA,1".utf8))
                peer.notifyState("modem", .absent, "unplugged")
                peer.send(Array(#"{"jsonrpc":"2.0","method":"device.future","params":{}}"#.utf8) + [10])
                let unknownState =
                    #"{"jsonrpc":"2.0","method":"device.state","params":{"device":"x","state":"asleep"}}"#
                peer.send(Array(unknownState.utf8) + [10])
                peer.notifyData("raw", [0xFF, 0x00])
            default:
                break
            }
        }
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        defer { connection.close() }
        try await connection.subscribe()
        let call = Task { try await connection.transact(device: "modem", text: "AT") }
        let events = try await bounded {
            var events: [DeviceEvent] = []
            for await event in connection.events {
                events.append(event)
                if events.count == 3 { break }
            }
            return events
        }
        #expect(
            events == [
                .data(device: "gps", frame: Frame(text: "$GPGGA,1")),
                .state(device: "modem", state: .absent, reason: "unplugged"),
                .data(device: "raw", frame: Frame([0xFF, 0x00])),
            ]
        )
        let (id, peer) = try #require(heldTransact.withLock { $0 })
        peer.reply(id, Self.echo(Array("OK".utf8)))
        let result = try await bounded { try await call.value }
        #expect(result.frames == [Frame(text: "OK")])
    }

    @Test func aResponseSplitAcrossWritesAndSeveralLinesInOneWriteAreBothRead() async throws {
        let daemon = try FakeDaemon { request, peer in
            guard case .transact = request.method else { return }
            var line: [UInt8] = []
            ResponseEncoder.success(id: request.id, result: Self.echo(Array("split".utf8)), into: &line)
            line.insert(UInt8(ascii: "\r"), at: line.count - 1)  // CRLF is accepted too
            var notification: [UInt8] = []
            ResponseEncoder.deviceData(device: "gps", frame: Array("fix".utf8), into: &notification)
            let middle = line.count / 2
            peer.send(notification + Array(line[..<middle]))
            peer.send(Array(line[middle...]), after: .milliseconds(50))
        }
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath)
        defer { connection.close() }
        let result = try await bounded { try await connection.transact(device: "echo", text: "x") }
        #expect(result.frames == [Frame(text: "split")])
        let event = try await bounded { await connection.events.first { _ in true } }
        #expect(event == .data(device: "gps", frame: Frame(text: "fix")))
    }

    @Test func unreadEventsBeyondTheBufferLimitDropTheOldestAndAreCounted() async throws {
        let daemon = try FakeDaemon { request, peer in
            peer.reply(request.id, JSONValue.object([:]))
            for index in 1...5 { peer.notifyData("gps", Array("fix \(index)".utf8)) }
            peer.reply(.string("marker"), JSONValue.object([:]))
        }
        defer { daemon.stop() }
        let connection = try await AccessoryConnection.connect(socketPath: daemon.socketPath, eventBufferLimit: 2)
        defer { connection.close() }
        try await connection.subscribe(device: "gps")
        #expect(await Wait.until { connection.unmatchedResponseCount == 1 }, "the marker after the events arrived")
        #expect(connection.droppedEventCount == 3)
        let kept = try await bounded {
            var kept: [DeviceEvent] = []
            for await event in connection.events {
                kept.append(event)
                if kept.count == 2 { break }
            }
            return kept
        }
        #expect(
            kept == [
                .data(device: "gps", frame: Frame(text: "fix 4")), .data(device: "gps", frame: Frame(text: "fix 5")),
            ]
        )
    }
}
