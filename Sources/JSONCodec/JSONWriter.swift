/// Writes JSON text into memory sized up front: each piece is a bounds check and a copy, where
/// appending to an array checks uniqueness and capacity and goes through the generic copy
/// (about 100 instructions a piece; a `transact` reply has a dozen pieces).
///
/// Used for replies whose size has a bound known before encoding (``JSONEncodable/encodedSizeBound``):
/// ``line(capacity:_:)`` allocates the array once, at that bound, and the writer fills it. A
/// write past the capacity traps: the bound is a promise, not a guess.
///
/// Threading: a value, used by one thread while its closure runs.
public struct JSONWriter {
    @usableFromInline let base: UnsafeMutablePointer<UInt8>
    @usableFromInline let capacity: Int
    /// Bytes written so far.
    @usableFromInline var count = 0

    private init(base: UnsafeMutablePointer<UInt8>, capacity: Int) {
        self.base = base
        self.capacity = capacity
    }

    /// The most a line written on the stack (``withStackLine(capacity:_:_:)``) may need.
    package static var stackLimit: Int { 1_024 }

    /// Writes at most `capacity` (≤ ``stackLimit``) bytes with `body` into memory on the stack and
    /// hands them to `use`, valid only during that call: for a line that is written out at once
    /// and copied only if it must wait, so that most replies allocate nothing.
    package static func withStackLine(
        capacity: Int,
        _ body: (inout JSONWriter) -> Void,
        _ use: (UnsafeRawBufferPointer) -> Void
    ) {
        precondition(capacity > 0 && capacity <= stackLimit, "JSONWriter: a stack line past its limit")
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var writer = JSONWriter(base: buffer.baseAddress!, capacity: capacity)
            body(&writer)
            use(UnsafeRawBufferPointer(start: buffer.baseAddress, count: writer.count))
        }
    }

    /// An array of at most `capacity` bytes, written by `body`.
    package static func line(capacity: Int, _ body: (inout JSONWriter) -> Void) -> [UInt8] {
        // Up to the stack limit of `withUnsafeTemporaryAllocation`: written on the stack, then
        // copied into an array of the exact size. `Array(unsafeUninitializedCapacity:)` looks up
        // the array's storage type at run time (about 370 instructions); the copy costs less.
        if capacity > 0 && capacity <= stackLimit {
            var line: [UInt8] = []
            withStackLine(capacity: capacity, body) { line = [UInt8]($0) }
            return line
        }
        return [UInt8](unsafeUninitializedCapacity: capacity) { buffer, initialized in
            var writer = JSONWriter(base: buffer.baseAddress!, capacity: buffer.count)
            body(&writer)
            initialized = writer.count
        }
    }

    /// Room for `maxCount` more bytes, handed to `body`, which answers how many it wrote.
    @inlinable @inline(__always)
    public mutating func withUnsafeOutput(maxCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        precondition(maxCount <= capacity - count, "JSONWriter: past its capacity")
        let written = body(base + count)
        precondition(written <= maxCount)
        count += written
    }
}

/// Where JSON text goes: an array (appended to, growing as needed) or a ``JSONWriter`` (written
/// into memory sized up front). The encoders are written once, generically, and specialized for
/// each within this module. Threading: that of the sink.
///
/// Public, not package, for one reason: its `@inlinable` members are inlined and specialized in
/// the modules that call them (ControlProtocol's encoders and fast path), which a package
/// declaration cannot be. Keeping them out of line cost about 900 instructions per `transact`.
public protocol JSONSink {
    mutating func append(_ byte: UInt8)
    mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>)
    /// Room for at most `maxCount` (≤ 1,024) bytes; `body` answers how many it wrote.
    mutating func withUnsafeOutput(maxCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int)
}

extension JSONSink {
    @inlinable @inline(__always)
    public mutating func append(_ literal: StaticString) {
        append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }
}

extension JSONWriter: JSONSink {
    @inlinable @inline(__always)
    public mutating func append(_ byte: UInt8) {
        precondition(count < capacity, "JSONWriter: past its capacity")
        base[count] = byte
        count += 1
    }

    @inlinable @inline(__always)
    public mutating func append(contentsOf bytes: UnsafeBufferPointer<UInt8>) {
        precondition(bytes.count <= capacity - count, "JSONWriter: past its capacity")
        if let source = bytes.baseAddress { (base + count).initialize(from: source, count: bytes.count) }
        count += bytes.count
    }
}

extension Array: JSONSink where Element == UInt8 {
    @inlinable
    public mutating func withUnsafeOutput(maxCount: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) {
        // On the stack (`withUnsafeTemporaryAllocation` keeps up to 1,024 bytes there), then one copy.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: maxCount) { scratch in
            let written = body(scratch.baseAddress!)
            append(contentsOf: UnsafeBufferPointer(rebasing: scratch[..<written]))
        }
    }
}
