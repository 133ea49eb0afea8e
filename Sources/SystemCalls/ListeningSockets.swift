/// The host's listening TCP sockets, as `/proc/net/tcp` and `/proc/net/tcp6` list them, and which
/// process holds a socket: what a configuration check needs to say that a port is taken, and by
/// whom, without binding it. Any thread.
public enum ListeningSockets {
    /// One listening socket. A value. Any thread.
    public struct Entry: Sendable, Hashable {
        public var endpoint: InetEndpoint
        public var uid: UInt32
        public var inode: UInt64
    }

    /// Every listening TCP socket of this network namespace (none where procfs cannot be read).
    public static func tcp() -> [Entry] {
        var entries: [Entry] = []
        for (path, width) in [("/proc/net/tcp", 4), ("/proc/net/tcp6", 16)] {
            guard let bytes = try? FileIO.readFile(path, limit: 64 << 20) else { continue }
            for line in String(decoding: bytes, as: UTF8.self).split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                // sl local rem st tx:rx tr:when retrnsmt uid timeout inode; 0A is LISTEN.
                guard fields.count >= 10, fields[3] == "0A", let uid = UInt32(fields[7]),
                    let inode = UInt64(fields[9]), let endpoint = endpoint(fields[1], width: width)
                else { continue }
                entries.append(Entry(endpoint: endpoint, uid: uid, inode: inode))
            }
        }
        return entries
    }

    /// `0100007F:0FA1` (32-bit words in the kernel's byte order, here little-endian) as an endpoint.
    static func endpoint(_ text: Substring, width: Int) -> InetEndpoint? {
        let parts = text.split(separator: ":")
        guard parts.count == 2, parts[0].count == width * 2, let port = UInt16(parts[1], radix: 16) else { return nil }
        var bytes: [UInt8] = []
        var rest = parts[0]
        while !rest.isEmpty {
            guard let word = UInt32(rest.prefix(8), radix: 16) else { return nil }
            bytes += [0, 8, 16, 24].map { UInt8(truncatingIfNeeded: word >> $0) }
            rest = rest.dropFirst(8)
        }
        return InetEndpoint(address: bytes, port: port)
    }

    /// The inodes of this process's own sockets (`/proc/self/fd`).
    public static func ownInodes() -> Set<UInt64> {
        inodes(ofProcess: "self")
    }

    /// The process holding a socket with `inode`, and its command name, if one can be seen
    /// (another user's processes only to root). Bounded: the first 65,536 processes.
    public static func holder(of inode: UInt64) -> (pid: Int32, command: String)? {
        guard let names = try? FileIO.listDirectory("/proc") else { return nil }
        for name in names.prefix(65_536) {
            guard let pid = Int32(name), inodes(ofProcess: name).contains(inode) else { continue }
            let comm = (try? FileIO.readFile("/proc/\(name)/comm", limit: 64)) ?? []
            return (pid, String(decoding: comm, as: UTF8.self).filter { $0 != "\n" })
        }
        return nil
    }

    private static func inodes(ofProcess pid: String) -> Set<UInt64> {
        let folder = "/proc/\(pid)/fd"
        guard let fds = try? FileIO.listDirectory(folder) else { return [] }
        var found: Set<UInt64> = []
        for fd in fds {
            guard let target = try? FileIO.readLink(folder + "/" + fd), target.hasPrefix("socket:["),
                let inode = UInt64(target.dropFirst("socket:[".count).dropLast())
            else { continue }
            found.insert(inode)
        }
        return found
    }
}
