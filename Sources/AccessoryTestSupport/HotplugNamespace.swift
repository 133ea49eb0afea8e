import SystemCalls

/// Whether this process runs in a private network namespace made for the hot-plug tests, where
/// fake udev messages reach only this process's monitors.
///
/// The wrapper (`make test`) records the host's namespace in `ACCESSORYD_HOST_NETNS` before
/// `unshare -rn`; the tests run only when that is set and differs from this process's namespace.
/// (Comparing with `/proc/1/ns/net` is not possible here: reading it needs ptrace rights over
/// PID 1, which the machine denies even to root.)
///
/// Any thread.
package enum HotplugNamespace {
    package static let hostVariable = "ACCESSORYD_HOST_NETNS"

    /// `/proc/self/ns/net`'s link text, e.g. `net:[4026531833]`.
    package static var current: String? { try? FileIO.readLink("/proc/self/ns/net") }

    /// True in a namespace other than the recorded host one.
    package static var isPrivateNetwork: Bool { skipReason == nil }

    /// Why the netlink tests are skipped here, or nil when they can run.
    package static var skipReason: String? {
        let how =
            "run them with: \(hostVariable)=\"$(readlink /proc/self/ns/net)\" unshare -rn swift test --skip-build "
            + "--no-parallel --filter HotplugNetlink (make test does)"
        guard let host = ProcessEnvironment.value(hostVariable), !host.isEmpty else {
            return "fake udev messages must not reach the host's listeners; \(how)"
        }
        guard let current, current != host else {
            return "still in the host network namespace \(host); \(how)"
        }
        return nil
    }
}
