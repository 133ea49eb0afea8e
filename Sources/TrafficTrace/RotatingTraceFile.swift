import SystemCalls

/// A trace file that is rotated when it would grow past `maxBytes`: `file` becomes `file.1`,
/// `file.1` becomes `file.2` … up to `file.<keep>`; what was `file.<keep>` is replaced (so there
/// are never more than `keep` old files; with `keep` 0 the file is simply started afresh). A file
/// is larger than `maxBytes` only when one record alone is.
///
/// Created safely in a folder others might write to (``FileIO/openForAppending(_:mode:)``:
/// a symbolic link, a FIFO, a device or a file with a second name is refused), mode 0640. A
/// file already there (a restart) is appended to.
///
/// Writer thread only (``TraceSink``); ``open(path:maxBytes:keep:)`` on any one thread.
public final class RotatingTraceFile: TraceSink {
    public let path: String
    public let maxBytes: Int64
    public let keep: Int
    private var fd: OwnedFD?
    /// Bytes in the file plus those held in `held`.
    private var size: Int64
    /// Records not yet written: one write a batch, not one a record.
    private var held: [UInt8] = []
    private static let flushThreshold = 64 << 10
    /// The permission bits of new trace files: the daemon's user reads and writes, its group reads.
    public static let mode: UInt32 = 0o640

    private init(path: String, maxBytes: Int64, keep: Int, fd: consuming OwnedFD, size: Int64) {
        self.path = path
        self.maxBytes = maxBytes
        self.keep = keep
        self.fd = consume fd
        self.size = size
        held.reserveCapacity(Self.flushThreshold)
    }

    /// Opens (or creates) `path` to append to.
    public static func open(path: String, maxBytes: Int64, keep: Int) throws(TraceError) -> RotatingTraceFile {
        let opened = try openFile(path)
        let size = opened.status.size
        return RotatingTraceFile(path: path, maxBytes: maxBytes, keep: keep, fd: opened.takeDescriptor(), size: size)
    }

    private static func openFile(_ path: String) throws(TraceError) -> OpenedFile {
        let opened: OpenedFile
        do {
            opened = try FileIO.openForAppending(path, mode: mode)
        } catch {
            switch error.errno {
            case .tooManySymbolicLinkLevels:
                throw TraceError("cannot open trace file \(path): it is a symbolic link (refused)")
            case .noSuchAddressOrDevice:
                throw TraceError("cannot open trace file \(path): it is a FIFO (refused)")
            default:
                throw TraceError("cannot open trace file \(path): \(error.errno.description)")
            }
        }
        let status = opened.status
        guard status.kind == .regular else {
            throw TraceError("cannot use trace file \(path): it is \(status.kind.rawValue), not a regular file")
        }
        guard status.linkCount == 1 else {
            throw TraceError("cannot use trace file \(path): it has \(status.linkCount) names (a hard link; refused)")
        }
        return opened
    }

    public func write(record: UnsafeBufferPointer<UInt8>) throws(TraceError) {
        if size > 0 && size + Int64(record.count) > maxBytes {
            try flush()
            try rotate()
        }
        held.append(contentsOf: record)
        size += Int64(record.count)
        if held.count >= Self.flushThreshold { try flush() }
    }

    public func flush() throws(TraceError) {
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
    private func rotate() throws(TraceError) {
        fd.take()?.close()
        size = 0
        do {
            if keep == 0 {
                try Self.unlessMissing { () throws(SyscallError) in try FileIO.unlink(path) }
            } else {
                // Missing names are fine: fewer old files than `keep` so far, or removed by hand.
                for index in stride(from: keep - 1, through: 1, by: -1) {
                    try Self.unlessMissing { () throws(SyscallError) in
                        try FileIO.rename("\(path).\(index)", to: "\(path).\(index + 1)")
                    }
                }
                try Self.unlessMissing { () throws(SyscallError) in try FileIO.rename(path, to: "\(path).1") }
            }
        } catch {
            throw TraceError("cannot rotate trace file \(path): \(error.errno.description)")
        }
        let opened = try Self.openFile(path)
        size = opened.status.size
        fd = .some(opened.takeDescriptor())
    }

    /// Runs `body`, taking "no such file" for success.
    private static func unlessMissing(_ body: () throws(SyscallError) -> Void) throws(SyscallError) {
        do {
            try body()
        } catch  where error.errno == .noSuchFileOrDirectory {
            return
        }
    }

    public func close() {
        try? flush()
        fd.take()?.close()
    }
}
