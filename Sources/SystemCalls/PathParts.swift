/// The two halves of a file path, lexically (no file is looked at): what many callers need to
/// check a file's folder or to make a name beside it.
///
/// Threading: pure functions; any thread.
public enum PathParts {
    /// The folder that holds `path`: "/" for an entry at the root, "." for a bare name.
    public static func folder(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The last component of `path` (all of it for a bare name).
    public static func name(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return path }
        return String(path[path.index(after: slash)...])
    }
}
