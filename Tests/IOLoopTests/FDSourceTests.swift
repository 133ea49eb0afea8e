import AccessoryTestSupport
import Glibc
import IOLoop
import SystemCalls
import Testing

@Suite("descriptor sources")
struct FDSourceTests {
    @Test("pipe: readable when written, hang-up when the writer closes")
    func pipeReadableAndHangup() throws {
        try withCheckedLoop { loop in
            let pipe = try FileIO.pipe()
            let writer = pipe.second.release()
            var events: [FDEvents] = []
            var received: [UInt8] = []
            var readFD: CInt = -1
            let source = try loop.addSource(owning: pipe.first, interest: .readable) { e in
                events.append(e)
                if e.contains(.readable), let bytes = try? FileIO.read(readFD, max: 64) {
                    received += bytes
                }
            }
            readFD = source.fd
            _ = try FileIO.write(writer, Array("hello".utf8))
            let start = loop.now
            loop.run(while: { received.count < 5 && loop.now < start + .seconds(5) })
            #expect(received == Array("hello".utf8))
            OwnedFD(adopting: writer).close()
            loop.run(while: { !events.contains(where: { $0.contains(.hangup) }) && loop.now < start + .seconds(5) })
            #expect(events.last?.contains(.hangup) == true)
            source.cancel()
        }
    }

    @Test("socketpair: writable interest can be switched on and off while registered")
    func interestChanges() throws {
        try withCheckedLoop { loop in
            let pair = try Socket.socketPair()
            let peer = pair.second
            var writableEvents = 0
            let source = try loop.addSource(owning: pair.first, interest: .writable) { e in
                if e.contains(.writable) { writableEvents += 1 }
            }
            loop.run(until: loop.now + .milliseconds(20))
            #expect(writableEvents > 0, "a fresh socket is writable")
            source.setInterest(.readable)
            let before = writableEvents
            loop.run(until: loop.now + .milliseconds(20))
            #expect(writableEvents == before, "no writable events once the interest is dropped")
            #expect(source.interest == .readable)
            source.cancel()
            peer.close()
        }
    }

    @Test("pty: closing the master gives the slave's source a hang-up")
    func ptyHangup() throws {
        try withCheckedLoop { loop in
            let pty = try PseudoTerminal.open()
            let slave = try FileIO.open(pty.slavePath, flags: O_RDWR | O_NOCTTY | O_NONBLOCK)
            var master: OwnedFD? = pty.master
            var sawHangup = false
            let source = try loop.addSource(owning: slave, interest: .readable) { e in
                if e.contains(.hangup) { sawHangup = true }
            }
            master.take()?.close()
            let start = loop.now
            loop.run(while: { !sawHangup && loop.now < start + .seconds(5) })
            #expect(sawHangup)
            source.cancel()
        }
    }

    @Test("a source cancelled by another source's handler gets no event from the same batch")
    func removalDuringCallback() throws {
        try withCheckedLoop { loop in
            let p1 = try FileIO.pipe()
            let p2 = try FileIO.pipe()
            let w1 = p1.second
            let w2 = p2.second
            _ = try FileIO.write(w1.rawValue, [1])
            _ = try FileIO.write(w2.rawValue, [2])
            var calls = 0
            var sources: [FDSource] = []
            // Both are readable before the loop waits, so both events come in one epoll batch; the
            // first handler to run cancels both, and the other must not be called.
            let handler: (FDEvents) -> Void = { _ in
                calls += 1
                for s in sources { s.cancel() }
            }
            sources.append(try loop.addSource(owning: p1.first, interest: .readable, handler: handler))
            sources.append(try loop.addSource(owning: p2.first, interest: .readable, handler: handler))
            loop.run(until: loop.now + .milliseconds(30))
            #expect(calls == 1)
            w1.close()
            w2.close()
        }
    }

    @Test("fd reuse: an event queued for a closed registration is not delivered to a new one on the same number")
    func staleEventAfterReuse() throws {
        try withCheckedLoop { loop in
            let pa = try FileIO.pipe()
            let pb = try FileIO.pipe()
            let wa = pa.second
            let wb = pb.second
            _ = try FileIO.write(wa.rawValue, [1])
            _ = try FileIO.write(wb.rawValue, [2])
            var sources: [FDSource] = []
            var replacementCalls = 0
            var replacements: [FDSource] = []
            var keepWriters: [CInt] = []
            var firstHandled = false
            // Whichever handler runs first closes the other source's fd and immediately opens a new
            // (empty) pipe, which the kernel gives the lowest free number: the one just closed.
            let handler: (FDEvents) -> Void = { _ in
                guard !firstHandled else { return }
                firstHandled = true
                for s in sources { s.cancel() }
                for _ in 0..<2 {
                    let fresh = try! FileIO.pipe()
                    keepWriters.append(fresh.second.release())
                    replacements.append(
                        try! loop.addSource(owning: fresh.first, interest: .readable) { _ in replacementCalls += 1 }
                    )
                }
            }
            sources.append(try loop.addSource(owning: pa.first, interest: .readable, handler: handler))
            sources.append(try loop.addSource(owning: pb.first, interest: .readable, handler: handler))
            let oldNumbers = Set(sources.map(\.fd))
            loop.run(until: loop.now + .milliseconds(30))
            #expect(firstHandled)
            #expect(!oldNumbers.isDisjoint(with: replacements.map(\.fd)), "the test needs a reused fd number")
            #expect(replacementCalls == 0, "the new pipes are empty: any call is a stale event")
            for r in replacements { r.cancel() }
            for w in keepWriters { OwnedFD(adopting: w).close() }
            wa.close()
            wb.close()
        }
    }
}
