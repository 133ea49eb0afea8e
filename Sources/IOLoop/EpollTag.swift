/// What a loop stores in the 64-bit data word of each epoll registration, so that an event says
/// which registration it belongs to: the loop's wake-up eventfd, its timerfd, or a source.
///
/// Layout: the high 32 bits are a registration id, the low 32 bits a descriptor number. Ids 0 and
/// 1 are the eventfd and the timerfd (their descriptor bits are not used); sources get ids from
/// ``SourceRegistration/first`` up, so that an event queued for a closed registration is told
/// apart from one for a newer registration that reuses the descriptor number.
///
/// A value. Any thread.
package enum EpollTag: Equatable, Sendable {
    /// The eventfd written by `perform` and `stop` from other threads.
    case wakeup
    /// The timerfd armed for the earliest timer.
    case timer
    /// A descriptor source.
    case source(SourceRegistration)

    /// The data word to register with epoll.
    package var epollData: UInt64 {
        switch self {
        case .wakeup: 0
        case .timer: UInt64(1) << 32
        case .source(let r): UInt64(r.id) << 32 | UInt64(UInt32(bitPattern: r.fd))
        }
    }

    /// Decodes the data word of an event.
    package init(epollData data: UInt64) {
        let id = UInt32(truncatingIfNeeded: data >> 32)
        switch id {
        case 0: self = .wakeup
        case 1: self = .timer
        default:
            self = .source(SourceRegistration(id: id, fd: CInt(bitPattern: UInt32(truncatingIfNeeded: data))))
        }
    }
}

/// One registration of a descriptor source: its id (never 0 or 1) and descriptor. A value. Any
/// thread.
package struct SourceRegistration: Equatable, Sendable {
    /// The smallest source id (below it are the wake-up and timer tags).
    package static let first: UInt32 = 2

    package let id: UInt32
    package let fd: CInt

    package init(id: UInt32, fd: CInt) {
        precondition(id >= SourceRegistration.first, "registration ids 0 and 1 are the wake-up and timer tags")
        self.id = id
        self.fd = fd
    }

    /// The id after `id`, wrapping back to ``first`` (never onto the reserved ids).
    package static func id(after id: UInt32) -> UInt32 { id == .max ? first : id + 1 }
}
