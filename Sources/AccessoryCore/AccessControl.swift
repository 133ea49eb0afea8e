import AccessoryConfig
import Glibc
import SystemCalls

/// An accessory's `access:` policy with names resolved to ids, checked against a client's
/// peer credentials. Root and the daemon's own user are always allowed; an empty policy allows
/// everyone who can reach the socket (whose mode and group are the first gate).
///
/// Any thread (a value).
public struct AccessControl: Sendable, Equatable {
    public var uids: Set<uid_t>
    public var gids: Set<gid_t>
    /// Names that did not resolve when the policy was built (reported, never matching).
    public var unresolved: [String]
    public var isOpen: Bool { uids.isEmpty && gids.isEmpty && unresolved.isEmpty }

    public init(_ policy: AccessPolicy) {
        var uids = Set<uid_t>()
        var gids = Set<gid_t>()
        var unresolved: [String] = []
        for p in policy.users {
            switch p {
            case .id(let id): uids.insert(uid_t(id))
            case .name(let n):
                if let id = AccessControl.lookup({ () throws(SyscallError) in try UserDatabase.userID(named: n) }) {
                    uids.insert(id)
                } else {
                    unresolved.append("user \(n)")
                }
            }
        }
        for p in policy.groups {
            switch p {
            case .id(let id): gids.insert(gid_t(id))
            case .name(let n):
                if let id = AccessControl.lookup({ () throws(SyscallError) in try UserDatabase.groupID(named: n) }) {
                    gids.insert(id)
                } else {
                    unresolved.append("group \(n)")
                }
            }
        }
        self.uids = uids
        self.gids = gids
        self.unresolved = unresolved
    }

    /// A name lookup; a failing lookup counts as "no such name" (reported as unresolved).
    private static func lookup(_ f: () throws(SyscallError) -> UInt32?) -> UInt32? {
        (try? f()) ?? nil
    }

    /// Root and the daemon's own user: allowed everything, and shown everything.
    public static func isPrivileged(uid: uid_t) -> Bool {
        uid == 0 || uid == UserDatabase.effectiveUserID
    }

    /// Whether a peer with these credentials may use the accessory.
    /// ``allows(uid:gid:groups:)`` for a request's origin, asking it for its ids and groups only
    /// when the accessory is not open to everyone (each is a call through the existential, and the
    /// groups an array retained and released: on every request).
    func allows(_ origin: any RequestOrigin) -> Bool {
        isOpen || allows(uid: origin.uid, gid: origin.gid, groups: origin.groups)
    }

    public func allows(uid: uid_t, gid: gid_t, groups: [gid_t]) -> Bool {
        if isOpen || Self.isPrivileged(uid: uid) { return true }
        if uids.contains(uid) || gids.contains(gid) { return true }
        return groups.contains(where: gids.contains)
    }
}
