import SystemCalls

/// Bytes waiting to be written to a non-blocking descriptor, written in order with partial writes
/// and `EAGAIN` accepted.
///
/// Owned by one accessory; loop thread only.
struct OutboundBuffer {
    private var storage: [UInt8] = []
    private var head = 0

    /// Bytes not yet written.
    var count: Int { storage.count - head }
    var isEmpty: Bool { head == storage.count }

    mutating func append(_ bytes: some Collection<UInt8>) {
        if head > 0 && head == storage.count {
            storage.removeAll(keepingCapacity: true)
            head = 0
        } else if head > 65_536 && head * 2 > storage.count {
            storage.removeFirst(head)
            head = 0
        }
        storage.append(contentsOf: bytes)
    }

    /// Writes as much as the descriptor takes. Returns true when everything is written.
    mutating func flush(to fd: CInt) throws(SyscallError) -> Bool {
        while !isEmpty {
            let r: Result<IOResult<Int>, SyscallError> = storage.withUnsafeBytes { all in
                let pending = UnsafeRawBufferPointer(rebasing: all[head...])
                do throws(SyscallError) { return .success(try FileIO.write(fd, from: pending)) } catch {
                    return .failure(error)
                }
            }
            switch try r.get() {
            case .wouldBlock: return false
            case .processed(let n): head += n
            }
        }
        storage.removeAll(keepingCapacity: storage.capacity <= 1 << 20)
        head = 0
        return true
    }

    mutating func removeAll() {
        storage = []
        head = 0
    }
}
