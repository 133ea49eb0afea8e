import Glibc

/// Whether the tests run under a sanitizer, for the few checks of wall-clock time.
///
/// Threading: stateless. Any thread.
enum Sanitizers {
    /// True when ThreadSanitizer's runtime is loaded (`swift test --sanitize=thread`).
    static let threadSanitizerIsActive = dlsym(nil, "__tsan_init") != nil
}
