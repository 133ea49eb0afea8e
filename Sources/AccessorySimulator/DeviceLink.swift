import SystemCalls

/// Publishes a slave path as a symbolic link the way udev does: the link is made under a
/// temporary name beside the final one and renamed over it, so a watcher never sees a missing or
/// half-made link when it flips to a new slave.
///
/// Any thread (stateless; the caller serialises calls for one link).
enum DeviceLink {
    /// Points `link` at `target`, atomically replacing whatever was there.
    static func publish(_ target: String, at link: String) throws(SyscallError) {
        var random = SystemRandomNumberGenerator()
        let temporary = "\(link).tmp-\(String(random.next() as UInt64, radix: 36))"
        try FileIO.symlink(target: target, at: temporary)
        do throws(SyscallError) {
            try FileIO.rename(temporary, to: link)
        } catch {
            try? FileIO.unlink(temporary)
            throw error
        }
    }

    /// Removes `link` if it still points at `target` (a link someone else replaced is left alone).
    static func remove(_ link: String, ifPointingAt target: String) {
        guard let current = try? FileIO.readLink(link), current == target else { return }
        try? FileIO.unlink(link)
    }
}
