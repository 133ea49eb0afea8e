import SystemCalls

/// Who is on the other end of a client connection, as the kernel vouches for it: `SO_PEERCRED`
/// (pid, uid, gid as they were at `connect`) and the supplementary groups. What the daemon's
/// access checks read.
///
/// Threading: a value. Any thread.
public struct ClientCredentials: Sendable, Hashable, CustomStringConvertible {
    public var pid: Int32
    public var uid: UInt32
    public var gid: UInt32
    /// Supplementary groups. From `SO_PEERGROUPS` (as at `connect`; Linux 4.13+), or on older
    /// kernels from the `Groups:` line of `/proc/<pid>/status` at accept (best effort: empty if
    /// the process is gone or the file unreadable).
    public var groups: [UInt32]

    public init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32]) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }

    /// Whether the client's primary or a supplementary group is `gid`.
    public func isMember(ofGroup gid: UInt32) -> Bool { self.gid == gid || groups.contains(gid) }

    public var description: String { "pid \(pid), uid \(uid), gid \(gid)" }

    /// The credentials of the peer of the connected Unix socket `fd`. Any thread.
    static func ofPeer(_ fd: CInt) throws(SyscallError) -> ClientCredentials {
        let peer = try Socket.peerCredentials(fd)
        let groups: [UInt32]
        do {
            groups = try Socket.peerGroups(fd)
        } catch {
            groups = ProcessStatus.supplementaryGroups(ofProcess: peer.pid) ?? []
        }
        return ClientCredentials(pid: peer.pid, uid: peer.uid, gid: peer.gid, groups: groups)
    }
}

/// Reading `/proc/<pid>/status`. Any thread.
enum ProcessStatus {
    /// The `Groups:` of process `pid`, or `nil` if it cannot be read.
    static func supplementaryGroups(ofProcess pid: Int32) -> [UInt32]? {
        guard pid > 0, let text = try? FileIO.readFile("/proc/\(pid)/status", limit: 1 << 20) else { return nil }
        return groups(inStatus: text)
    }

    /// The numbers of the `Groups:` line of a status file's text (`Groups:\t4 24 27 \n`), or `nil`
    /// if there is no such line.
    static func groups(inStatus text: [UInt8]) -> [UInt32]? {
        let prefix = Array("Groups:".utf8)
        var lineStart = 0
        while lineStart < text.count {
            let lineEnd = text[lineStart...].firstIndex(of: UInt8(ascii: "\n")) ?? text.count
            let line = text[lineStart..<lineEnd]
            if line.starts(with: prefix) {
                return line.dropFirst(prefix.count)
                    .split(whereSeparator: { $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "\t") })
                    .compactMap { UInt32(String(decoding: $0, as: UTF8.self)) }
            }
            lineStart = lineEnd + 1
        }
        return nil
    }
}
