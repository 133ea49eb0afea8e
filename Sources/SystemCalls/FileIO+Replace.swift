import Glibc

/// Replacing a file that others read (a metrics textfile) so that a reader sees the old content
/// or the new, never half, and so that no name another user made is ever written through. Any
/// thread.
extension FileIO {
    /// Replaces `path` with `bytes` (permission bits `mode`): the new file is made beside it under
    /// an unpredictable name with `O_CREAT | O_EXCL` (`mkstemp`: a name someone put there first,
    /// symbolic link or not, makes the call fail rather than be followed), written and given its
    /// mode through its descriptor, then renamed over `path`. A failure removes the new file and
    /// leaves `path` as it was. The folder is the caller's to check: in a folder others may write,
    /// they could still rename the new file away before the rename.
    public static func replace(_ path: String, with bytes: [UInt8], mode: UInt32) throws(SyscallError) {
        let folder = PathParts.folder(of: path)
        var template = Array("\(folder == "/" ? "" : folder)/.\(PathParts.name(of: path)).XXXXXX".utf8CString)
        let raw = try syscallValue(.mkstemp) {
            template.withUnsafeMutableBufferPointer { Glibc.mkstemp($0.baseAddress!) }
        }
        let fd = OwnedFD(adopting: raw)
        _ = fcntl(raw, F_SETFD, FD_CLOEXEC)  // mkstemp has no flags argument (mkostemp is not imported)
        let temporary = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
        var failure: SyscallError?
        do throws(SyscallError) {
            try FileIO.writeAll(fd.rawValue, bytes)
            try FileIO.changeMode(ofDescriptor: fd.rawValue, to: mode)
        } catch {
            failure = error
        }
        fd.close()
        if failure == nil {
            do throws(SyscallError) { try FileIO.rename(temporary, to: path) } catch { failure = error }
        }
        if let failure {
            _ = Glibc.unlink(temporary)
            throw failure
        }
    }
}
