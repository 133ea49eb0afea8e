import ControlProtocol
import SystemCalls

/// Takes traffic records from the device loop and writes them to a ``TraceSink`` on a thread of
/// its own, so that a slow disk never holds up the device.
///
/// The loop's side (``append(direction:timestampMicroseconds:client:request:bytes:)``) copies the
/// record into a bounded buffer under a lock held for the copy only, and never waits for the
/// writer. When the buffer is full the record is dropped and counted; the next record that fits
/// is preceded by a mark (``TraceLayout/appendDropped(device:timestampMicroseconds:count:to:)``)
/// saying how many bytes are missing there. The writer thread swaps the whole buffer for an empty
/// one (no allocation once both have grown), formats the records and hands them to the sink.
///
/// Any thread: ``append(direction:timestampMicroseconds:client:request:bytes:)`` from one
/// producer at a time (the device loop), ``close()`` once.
package final class TraceWriter: Sendable {
    /// Counts since the writer started.
    ///
    /// Threading: a value. Any thread.
    package struct Statistics: Sendable, Equatable {
        /// Bytes of traffic accepted into the buffer.
        package var tracedBytes: Int64 = 0
        /// Bytes of traffic left out: the buffer was full, or the sink failed.
        package var droppedBytes: Int64 = 0
        /// The sink's last failure, if any.
        package var lastError: String?
    }

    /// The default bound of the buffer: about 90 seconds of a 115200-baud line in both
    /// directions, far more than a disk stalls for in normal operation.
    package static let defaultCapacity = 1 << 20

    package let device: String
    package let layout: TraceLayout
    package let capacity: Int
    private let shared: SignallingLock<TraceQueueState>
    private let thread: Locked<WorkerThread?>

    /// Starts the writer thread. `sink` is used from that thread only; `onError` is called there
    /// when the sink fails (once per different message).
    package init(
        device: String,
        layout: TraceLayout,
        sink: any TraceSink,
        capacity: Int = TraceWriter.defaultCapacity,
        onError: @escaping @Sendable (String) -> Void
    ) {
        self.device = device
        self.layout = layout
        self.capacity = capacity
        var initial = TraceQueueState()
        initial.pending.reserveCapacity(min(capacity, 64 << 10))
        shared = SignallingLock(initial)
        thread = Locked(nil)
        let job = WriterJob(device: device, layout: layout, sink: sink, shared: shared, onError: onError)
        thread.withLock { $0 = WorkerThread(name: "trace-\(device)") { job.run() } }
    }

    /// Queues one record; returns at once. Device loop (one producer).
    package func append(
        direction: TrafficRecord.Direction,
        timestampMicroseconds: Int64,
        client: UInt64?,
        request: RequestID?,
        bytes: UnsafeBufferPointer<UInt8>
    ) {
        shared.withLock { s in
            let wasEmpty = s.pending.isEmpty
            let needed = RecordHeader.size * (s.unmarkedDrops > 0 ? 2 : 1) + 32 + bytes.count
            guard !s.closing, s.pending.count + needed <= capacity else {
                if s.unmarkedDrops == 0 { s.firstDropMicroseconds = timestampMicroseconds }
                s.unmarkedDrops += Int64(bytes.count)
                s.statistics.droppedBytes += Int64(bytes.count)
                return ((), false)
            }
            if s.unmarkedDrops > 0 {
                RecordHeader.appendDropMark(
                    count: s.unmarkedDrops,
                    timestampMicroseconds: s.firstDropMicroseconds,
                    to: &s.pending
                )
                s.unmarkedDrops = 0
            }
            RecordHeader.append(
                direction: direction,
                timestampMicroseconds: timestampMicroseconds,
                client: client,
                request: request,
                bytes: bytes,
                to: &s.pending
            )
            s.statistics.tracedBytes += Int64(bytes.count)
            // Waking the writer once a batch: it takes everything pending when it wakes.
            return ((), wasEmpty)
        }
    }

    /// The counts so far. Any thread.
    package var statistics: Statistics {
        shared.withLock { s in (s.statistics, false) }
    }

    /// Writes what is queued (with a final drop mark if bytes were left out), closes the sink and
    /// waits for the thread to end. Later appends are dropped. Any thread but the writer's.
    package func close() {
        closing()?.join()
    }

    /// Tells the thread to write what is queued, close the sink and end, without waiting for it:
    /// for the device loop, which must not wait on a disk. The thread is joined later by
    /// ``awaitFinishing(within:)`` (the daemon's main thread, at exit), or ends by itself. Any
    /// thread but the writer's.
    package func finish() {
        guard let worker = closing() else { return }
        Self.finishing.withLock { list in
            // Writers that have ended since are joined now, so that the list holds only those
            // still writing (a daemon reloaded many times stops a trace at each reload).
            list.removeAll { $0.joinIfEnded() }
            list.append(worker)
        }
    }

    /// How many writers told to ``finish()`` are still writing, as far as the last ``finish()``
    /// or ``awaitFinishing(within:)`` saw (for tests). Any thread.
    package static var finishingCount: Int { finishing.withLock { $0.count } }

    /// Writer threads told to ``finish()`` and not yet joined. Process-wide, as the threads are.
    private static let finishing = Locked<[WorkerThread]>([])

    /// Waits for every writer told to ``finish()`` so far, all within one `limit` (a stalled disk
    /// must not hold the daemon's exit for long): true if all had ended; those still writing are
    /// left to end by themselves. Any thread but a writer's; not on a loop thread.
    package static func awaitFinishing(within limit: Duration) -> Bool {
        let workers = finishing.withLock { list in
            let taken = list
            list.removeAll()
            return taken
        }
        let deadline = ContinuousClock.now + limit
        var allEnded = true
        for worker in workers where !worker.join(within: max(deadline - ContinuousClock.now, .zero)) {
            allEnded = false
        }
        return allEnded
    }

    /// Tells the thread to finish; the thread, unless another close took it already.
    private func closing() -> WorkerThread? {
        shared.withLock { s in
            s.closing = true
            return ((), true)
        }
        return thread.withLock { t in
            let worker = t
            t = nil
            return worker
        }
    }
}

/// The buffer shared by the device loop and the writer thread.
///
/// Threading: under ``TraceWriter``'s lock.
struct TraceQueueState {
    /// Encoded records (``RecordHeader``), oldest first.
    var pending: [UInt8] = []
    /// Bytes dropped since the last mark, and when the first of them came.
    var unmarkedDrops: Int64 = 0
    var firstDropMicroseconds: Int64 = 0
    var statistics = TraceWriter.Statistics()
    var closing = false
}

/// The writer thread's side: waits for records, formats them, writes them.
///
/// Threading: its own thread only (after init).
private final class WriterJob: @unchecked Sendable {  // @unchecked: used by the writer thread only.
    let device: String
    let layout: TraceLayout
    let sink: any TraceSink
    let shared: SignallingLock<TraceQueueState>
    let onError: @Sendable (String) -> Void
    /// The records taken from the queue: swapped with its buffer, so both keep their storage.
    private var batch: [UInt8] = []
    /// One formatted record.
    private var out: [UInt8] = []
    private var lastError: String?

    init(
        device: String,
        layout: TraceLayout,
        sink: any TraceSink,
        shared: SignallingLock<TraceQueueState>,
        onError: @escaping @Sendable (String) -> Void
    ) {
        self.device = device
        self.layout = layout
        self.sink = sink
        self.shared = shared
        self.onError = onError
    }

    func run() {
        while true {
            let ready: (borrowing TraceQueueState) -> Bool = { !$0.pending.isEmpty || $0.closing }
            let closing = shared.wait(until: ready) { s in
                swap(&batch, &s.pending)
                if s.closing && s.unmarkedDrops > 0 {
                    // Bytes dropped at the very end: the mark still goes into the file.
                    RecordHeader.appendDropMark(
                        count: s.unmarkedDrops,
                        timestampMicroseconds: s.firstDropMicroseconds,
                        to: &batch
                    )
                    s.unmarkedDrops = 0
                }
                return s.closing
            }
            writeBatch()
            if closing {
                sink.close()
                return
            }
        }
    }

    private func writeBatch() {
        guard !batch.isEmpty else { return }
        // After a failure the rest of the batch is lost: its bytes (`lost`, not counted yet), and
        // the drop marks in it (`unmarked`, already counted), go into the next mark.
        var lost: Int64 = 0
        var unmarked: Int64 = 0
        var failure: TraceError?
        batch.withUnsafeBufferPointer { records in
            var offset = 0
            while offset < records.count {
                let record = RecordHeader.read(records, at: offset)
                offset = record.end
                if failure == nil {
                    failure = write(record)
                    if failure == nil { continue }
                }
                if let dropped = record.droppedCount {
                    unmarked += dropped
                } else {
                    lost += Int64(record.bytes.count)
                }
            }
        }
        batch.removeAll(keepingCapacity: true)
        if failure == nil {
            do throws(TraceError) { try sink.flush() } catch { failure = error }
        }
        guard let failure else { return }
        shared.withLock { s in
            // Marked in the file before the next record that makes it.
            if s.unmarkedDrops == 0 { s.firstDropMicroseconds = WallClock.microsecondsSinceEpoch() }
            s.unmarkedDrops += lost + unmarked
            s.statistics.droppedBytes += lost
            s.statistics.lastError = failure.description
            return ((), false)
        }
        if failure.description != lastError {
            lastError = failure.description
            onError(failure.description)
        }
    }

    /// Formats one record and hands it to the sink; the failure, if any.
    private func write(_ record: RecordHeader.Record) -> TraceError? {
        out.removeAll(keepingCapacity: true)
        if let dropped = record.droppedCount {
            layout.appendDropped(
                device: device,
                timestampMicroseconds: record.timestampMicroseconds,
                count: dropped,
                to: &out
            )
        } else {
            layout.append(
                device: device,
                timestampMicroseconds: record.timestampMicroseconds,
                direction: record.direction,
                client: record.client,
                request: record.request,
                bytes: record.bytes,
                to: &out
            )
        }
        do throws(TraceError) {
            try out.withUnsafeBufferPointer { formatted throws(TraceError) in try sink.write(record: formatted) }
            return nil
        } catch {
            return error
        }
    }
}
