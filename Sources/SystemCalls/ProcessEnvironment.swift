import Glibc

/// The process's environment variables.
///
/// Threading: ``value(_:)`` from any thread. ``unset(_:)`` from the main thread only, and only
/// while no other thread reads the environment (at startup, before any thread is started):
/// `unsetenv` is not thread-safe against `getenv`.
public enum ProcessEnvironment {
    /// The value of the variable `name`, or nil when it is not set. The corresponding C function
    /// is `getenv`.
    public static func value(_ name: String) -> String? {
        guard let raw = getenv(name) else { return nil }
        return String(cString: raw)
    }

    /// Removes the variable `name` (nothing happens when it is not set), so that child processes
    /// do not inherit it. The corresponding C function is `unsetenv`.
    public static func unset(_ name: String) throws(SyscallError) {
        _ = try syscallValue(.unsetenv) { Glibc.unsetenv(name) }
    }
}
