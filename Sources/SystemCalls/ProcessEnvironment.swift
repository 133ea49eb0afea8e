import Glibc

/// The process's environment variables. Any thread (reads only; nothing in this project calls
/// `setenv`).
public enum ProcessEnvironment {
    /// The value of the variable `name`, or nil when it is not set. The corresponding C function
    /// is `getenv`.
    public static func value(_ name: String) -> String? {
        guard let raw = getenv(name) else { return nil }
        return String(cString: raw)
    }
}
