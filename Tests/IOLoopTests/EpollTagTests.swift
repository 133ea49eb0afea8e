import Testing

@testable import IOLoop

@Suite("epoll data word")
struct EpollTagTests {
    @Test("the wake-up and timer tags keep their words (0 and 1 << 32) and decode back")
    func reservedTags() {
        #expect(EpollTag.wakeup.epollData == 0)
        #expect(EpollTag.timer.epollData == UInt64(1) << 32)
        #expect(EpollTag(epollData: 0) == .wakeup)
        #expect(EpollTag(epollData: UInt64(1) << 32) == .timer)
        // The descriptor bits of the reserved tags are not read.
        #expect(EpollTag(epollData: 7) == .wakeup)
        #expect(EpollTag(epollData: UInt64(1) << 32 | 9) == .timer)
    }

    @Test("a source's id and descriptor round-trip, at the edges of both fields")
    func sourceRoundTrip() {
        for id in [SourceRegistration.first, 3, 1000, UInt32.max] {
            for fd: CInt in [0, 1, 3, 1023, CInt.max] {
                let r = SourceRegistration(id: id, fd: fd)
                let word = EpollTag.source(r).epollData
                #expect(word >> 32 == UInt64(id))
                #expect(word & 0xFFFF_FFFF == UInt64(fd))
                #expect(EpollTag(epollData: word) == .source(r))
            }
        }
    }

    @Test("source ids wrap from the largest back to the first, never onto the reserved ids")
    func idsWrap() {
        #expect(SourceRegistration.first == 2)
        #expect(SourceRegistration.id(after: 2) == 3)
        #expect(SourceRegistration.id(after: UInt32.max - 1) == UInt32.max)
        #expect(SourceRegistration.id(after: UInt32.max) == SourceRegistration.first)
    }
}
