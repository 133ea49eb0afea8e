import SystemCalls

/// Who is on the other end of a client connection, as the kernel vouches for it: `SO_PEERCRED`
/// (pid, uid, gid as they were at `connect`) and the supplementary groups. What the daemon's
/// access checks read.
///
/// Threading: a value. Any thread.
package struct ClientCredentials: Sendable, Hashable, CustomStringConvertible {
    package var pid: Int32
    package var uid: UInt32
    package var gid: UInt32
    /// Supplementary groups, from `SO_PEERGROUPS` only (as at `connect`; Linux 4.13+). Never
    /// read from `/proc/<pid>/status`: that races with pid reuse and is hidden under
    /// `ProtectProc=invisible`. Empty when unknown (``groupsUnknown``): group rules then match
    /// the primary group only, failing closed.
    package var groups: [UInt32]
    /// Why the supplementary groups are unknown (the kernel lacks `SO_PEERGROUPS`), or `nil`.
    package var groupsUnknown: String?

    package init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32], groupsUnknown: String? = nil) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
        self.groupsUnknown = groupsUnknown
    }

    /// Whether the client's primary or a supplementary group is `gid`.
    package func isMember(ofGroup gid: UInt32) -> Bool { self.gid == gid || groups.contains(gid) }

    package var description: String { "pid \(pid), uid \(uid), gid \(gid)" }

    /// The credentials of the peer of the connected Unix socket `fd`. Any thread.
    static func ofPeer(_ fd: CInt) throws(SyscallError) -> ClientCredentials {
        let peer = try Socket.peerCredentials(fd)
        do {
            let groups = try Socket.peerGroups(fd)
            return ClientCredentials(pid: peer.pid, uid: peer.uid, gid: peer.gid, groups: groups)
        } catch {
            return ClientCredentials(
                pid: peer.pid,
                uid: peer.uid,
                gid: peer.gid,
                groups: [],
                groupsUnknown: "\(error)"
            )
        }
    }
}
