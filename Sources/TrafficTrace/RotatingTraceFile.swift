import SystemCalls

/// A trace file that is rotated when it would grow past `maxBytes`: `file` becomes `file.1`,
/// `file.1` becomes `file.2` … up to `file.<keep>`; what was `file.<keep>` is replaced (so there
/// are never more than `keep` old files; with `keep` 0 the file is simply started afresh). A file
/// is larger than `maxBytes` only when one record alone is.
///
/// Opened safely when other local users may be hostile (``TraceFileOpening``: the folder must not
/// be open to their names; a symbolic link, a FIFO, a device, a file with a second name or
/// another user's file is refused; a new file is made with `O_EXCL`), mode 0640. A file of the
/// daemon's already there (a restart) is appended to.
///
/// Writer thread only (``TraceSink``); ``open(path:maxBytes:keep:)`` on any one thread.
package final class RotatingTraceFile: TraceSink {
    package let path: String
    package let maxBytes: Int64
    package let keep: Int
    private var fd: OwnedFD?
    /// Bytes in the file plus those held in `held`.
    private var size: Int64
    /// Records not yet written: one write a batch, not one a record.
    private var held: [UInt8] = []
    private static let flushThreshold = 64 << 10
    /// The permission bits of new trace files: the daemon's user reads and writes, its group reads.
    package static let mode: UInt32 = 0o640

    private init(path: String, maxBytes: Int64, keep: Int, fd: consuming OwnedFD, size: Int64) {
        self.path = path
        self.maxBytes = maxBytes
        self.keep = keep
        self.fd = consume fd
        self.size = size
        held.reserveCapacity(Self.flushThreshold)
    }

    /// Opens (or creates) `path` to append to, safely when other users may be hostile
    /// (``TraceFileOpening``): the folder is checked, a file found must be the daemon's.
    package static func open(path: String, maxBytes: Int64, keep: Int) throws(TraceError) -> RotatingTraceFile {
        try TraceFileOpening.checkFolder(of: path)
        let opened = try TraceFileOpening.open(path, mode: mode)
        let size = opened.status.size
        return RotatingTraceFile(path: path, maxBytes: maxBytes, keep: keep, fd: opened.takeDescriptor(), size: size)
    }

    package func write(record: UnsafeBufferPointer<UInt8>) throws(TraceError) {
        if size > 0 && size + Int64(record.count) > maxBytes {
            try flush()
            try rotate()
        }
        held.append(contentsOf: record)
        size += Int64(record.count)
        if held.count >= Self.flushThreshold { try flush() }
    }

    package func flush() throws(TraceError) {
        guard !held.isEmpty, let raw = fd?.rawValue else { return }
        defer { held.removeAll(keepingCapacity: true) }
        var written = 0
        while written < held.count {
            let outcome: Result<IOResult<Int>, SyscallError> = held.withUnsafeBytes { bytes in
                do throws(SyscallError) {
                    return .success(try FileIO.write(raw, from: UnsafeRawBufferPointer(rebasing: bytes[written...])))
                } catch {
                    return .failure(error)
                }
            }
            let result: IOResult<Int>
            switch outcome {
            case .success(let value): result = value
            case .failure(let error):
                size -= Int64(held.count - written)
                throw TraceError("cannot write trace file \(path): \(error.errno.description)")
            }
            guard case .processed(let count) = result, count > 0 else {
                size -= Int64(held.count - written)
                throw TraceError("cannot write trace file \(path): the file system took nothing")
            }
            written += count
        }
    }

    /// `file.<keep-1>` → `file.<keep>` … `file` → `file.1`, then a new `file`.
    ///
    /// The new file is made first, with `O_EXCL` under an unpredictable name, and renamed over
    /// `file` last; the current file gets its name `file.1` by a hard link before that. So `file`
    /// always names a file of the daemon's: there is no moment at which another user could make
    /// a file of theirs at that name and have the daemon open it (the earlier rename-then-open
    /// had one).
    private func rotate() throws(TraceError) {
        fd.take()?.close()
        size = 0
        var temporary = ""
        let fresh = try TraceFileOpening.createTemporary(beside: path, mode: Self.mode, name: &temporary)
        do {
            if keep > 0 {
                // Missing names are fine: fewer old files than `keep` so far, or removed by hand.
                for index in stride(from: keep - 1, through: 1, by: -1) {
                    try Self.unlessMissing { () throws(SyscallError) in
                        try FileIO.rename("\(path).\(index)", to: "\(path).\(index + 1)")
                    }
                }
                // `file.1` is free now (renamed on, or the oldest with `keep` 1: dropped).
                try Self.unlessMissing { () throws(SyscallError) in try FileIO.unlink("\(path).1") }
                try Self.unlessMissing { () throws(SyscallError) in try FileIO.link(path, as: "\(path).1") }
            }
            // Replaces the current file's name `file` in one step (with `keep` 0, the file).
            try FileIO.rename(temporary, to: path)
        } catch {
            try? FileIO.unlink(temporary)
            throw TraceError("cannot rotate trace file \(path): \(error.errno.description)")
        }
        fd = .some(fresh.takeDescriptor())
    }

    /// Runs `body`, taking "no such file" for success.
    private static func unlessMissing(_ body: () throws(SyscallError) -> Void) throws(SyscallError) {
        do {
            try body()
        } catch  where error.errno == .noSuchFileOrDirectory {
            return
        }
    }

    package func close() {
        try? flush()
        fd.take()?.close()
    }
}
