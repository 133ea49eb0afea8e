import Glibc

/// A thread's identity (`pthread_t`), stored as a word so that it fits an atomic. Zero is never
/// a running thread's identity, so it can mean "no thread". A value. Any thread.
public struct ThreadID: Hashable, Sendable {
    /// The `pthread_t` as a word; zero for none.
    public let rawValue: UInt

    @inlinable
    public init(rawValue: UInt) { self.rawValue = rawValue }

    /// The calling thread. The corresponding C function is `pthread_self`.
    @inlinable
    public static var current: ThreadID { ThreadID(rawValue: UInt(pthread_self())) }

    /// True when this is the calling thread (false for zero). Inlinable: loops ask it on every
    /// perform. The corresponding C function is `pthread_equal`.
    @inlinable
    public var isCurrent: Bool { rawValue != 0 && pthread_equal(pthread_t(rawValue), pthread_self()) != 0 }
}
