/// Where a ``TraceWriter``'s thread puts formatted records: a ``RotatingTraceFile``, or in tests
/// a recorder or a sink that stalls.
///
/// Called only from the writer's thread (one thread at a time), so implementations need no lock
/// of their own.
package protocol TraceSink: AnyObject {
    /// Takes one formatted record (whole lines). May hold it until ``flush()``.
    func write(record: UnsafeBufferPointer<UInt8>) throws(TraceError)
    /// Hands everything held to the file. Called after each batch of records.
    func flush() throws(TraceError)
    /// Flushes and closes. Called once, last.
    func close()
}

/// Why tracing to a file failed: a sentence a person reads (with the file's name).
///
/// Threading: a value. Any thread.
package struct TraceError: Error, Sendable, Equatable, CustomStringConvertible {
    package let description: String

    package init(_ description: String) { self.description = description }
}
