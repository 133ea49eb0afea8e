import SystemCalls

/// The paths a device path leads through when it is a symbolic link (a `by-id` link, a link an
/// administrator made, a simulator's link): the path itself, then each link's target, made
/// absolute and normalised, for at most ``maxHops`` links. A dangling link still gives its
/// target, so that the node appearing or disappearing there can be recognised.
///
/// Any thread (pure, apart from `readlink`).
enum LinkChain {
    /// Links followed at most (the kernel's own limit for a path is 40; devices use one or two).
    static let maxHops = 8

    /// `path`, then the paths its links point to, in order.
    static func paths(from path: String) -> [String] {
        var out = [path]
        var current = path
        for _ in 0..<maxHops {
            guard let target = try? FileIO.readLink(current), !target.isEmpty else { break }
            let next = normalize(target.hasPrefix("/") ? target : folder(of: current) + "/" + target)
            if out.contains(next) { break }  // A loop of links.
            out.append(next)
            current = next
        }
        return out
    }

    /// The folder that holds `path` ("/" for a top-level entry).
    static func folder(of path: String) -> String { PathParts.folder(of: path) }

    /// An absolute path with `.`, `..` and repeated slashes removed (lexically, as `readlink -m`).
    static func normalize(_ path: String) -> String {
        var parts: [Substring] = []
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            switch part {
            case ".": continue
            case "..": if !parts.isEmpty { parts.removeLast() }
            default: parts.append(part)
            }
        }
        return "/" + parts.joined(separator: "/")
    }
}
