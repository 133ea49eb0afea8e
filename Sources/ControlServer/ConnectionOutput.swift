import SystemCalls

/// What a connection's writers share, under the connection's output lock: the lines not yet
/// written, the socket they go to, and how many requests are still owed a response.
///
/// Two threads write to a client's socket: the control loop, and the thread that produced a line
/// (the device loop, for responses and `device.data`), which writes it itself when nothing is
/// queued or on its way, instead of waking the control loop to do it. Both write only inside the
/// lock, so the bytes of two lines never interleave, and a line written directly never overtakes
/// one sent earlier (``linesInFlight``).
///
/// Threading: any thread, inside `ClientConnection.output`'s lock.
struct ConnectionOutput {
    var queue = OutboundQueue()
    /// The socket while the connection is open; nil once it closed (nothing may write then).
    var fd: CInt?
    /// Lines handed to the control loop in a perform block and not yet queued: until they are,
    /// a later line must not be written directly.
    var linesInFlight = 0
    /// Requests handed to the handler and not answered yet.
    var pendingRequests = 0

    /// A response is leaving (written or queued): one request less is owed.
    mutating func responseLeaving() {
        if pendingRequests > 0 { pendingRequests -= 1 }
    }

    /// Queues `line` and writes as ``writeQueued()`` does (`line` straight from its array when
    /// nothing was queued: ``OutboundQueue/appendAndDrain(_:_:)``). Returns the bytes written, or
    /// the errno of a failed write.
    mutating func write(_ line: some OutgoingLine) -> Result<Int, Errno> {
        guard let fd else {
            queue.append(line.kept())
            return .success(0)
        }
        do {
            return .success(
                try queue.appendAndDrain(line) { bytes throws(SyscallError) in try Socket.send(fd, from: bytes) }
            )
        } catch {
            return .failure(error.errno)
        }
    }

    /// Writes queued bytes until the queue is empty or the socket is full. Returns the bytes
    /// written, or the errno of a failed write.
    mutating func writeQueued() -> Result<Int, Errno> {
        guard let fd else { return .success(0) }
        do {
            return .success(try queue.drain { bytes throws(SyscallError) in try Socket.send(fd, from: bytes) })
        } catch {
            return .failure(error.errno)
        }
    }
}

/// What became of a line a thread other than the control loop tried to write itself.
///
/// Threading: a value. Any thread.
enum WriteThroughOutcome {
    /// All of it is in the socket.
    case written
    /// Part of it is in the socket; the rest is queued for the control loop to finish.
    case partlyWritten
    /// The write failed; the connection must close.
    case failed(Errno)
    /// Not allowed now (something is queued or on its way, or the connection is not open): the
    /// line must travel to the control loop, which has been told to expect it.
    case handOver
}
