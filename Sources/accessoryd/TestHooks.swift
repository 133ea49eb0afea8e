import Glibc
import Hotplug
import IOLoop
import SystemCalls

/// TEST HOOK, not a feature: only when `ACCESSORYD_TEST_HOOKS=1` is in the environment, SIGUSR1
/// makes the device loop sleep for `ACCESSORYD_TEST_STALL_MS` milliseconds (default 1000), as a
/// stuck device loop would. The integration tests use it to show that the watchdog pings stop
/// while the device loop is stuck. Without the variable nothing is installed and SIGUSR1 keeps its
/// default action.
///
/// Main thread (``install(on:environment:log:)``); the stall runs on the device loop.
enum TestHooks {
    static func install(on deviceLoop: IOLoop, environment: [String: String], log: DaemonLog) {
        guard environment["ACCESSORYD_TEST_HOOKS"] == "1" else { return }
        let stallMilliseconds =
            environment["ACCESSORYD_TEST_STALL_MS"].flatMap { UInt32($0) }.map { min($0, 60_000) } ?? 1000
        let pipe: OwnedFD
        do {
            pipe = try SignalPipe.install([SIGUSR1])
        } catch {
            log(.error, "test hooks: cannot install the SIGUSR1 handler: \(error)")
            return
        }
        log(.warning, "test hooks are on: SIGUSR1 stalls the device loop for \(stallMilliseconds) ms")
        let box = Locked<OwnedFD?>(consume pipe)
        deviceLoop.perform {
            guard let fd = box.withLock({ $0.take() }) else { return }
            let raw = fd.rawValue
            do {
                _ = try deviceLoop.addSource(owning: fd, interest: .readable) { _ in
                    while (try? SignalPipe.next(raw)) != nil {
                        log(.warning, "test hook: stalling the device loop for \(stallMilliseconds) ms")
                        usleep(stallMilliseconds * 1000)
                    }
                }
            } catch {
                log(.error, "test hooks: cannot watch the signal pipe: \(error)")
            }
        }
    }

    /// TEST HOOK, not a feature: only with `ACCESSORYD_TEST_HOOKS=1` and
    /// `ACCESSORYD_TEST_NO_UDEV=1`, the udev monitor fails to start, as it does where udev is
    /// unavailable (a container without /run/udev, a seccomp filter on netlink). The integration
    /// tests use it for `hotplug.udev: auto`'s fallback to folder watching and for `on`'s refusal
    /// to start; nothing else on a test machine makes libudev fail. Main thread.
    static func udevFailure(environment: [String: String]) -> HotplugError? {
        guard environment["ACCESSORYD_TEST_HOOKS"] == "1", environment["ACCESSORYD_TEST_NO_UDEV"] == "1" else {
            return nil
        }
        return .udevUnavailable(step: "udev_monitor_new_from_netlink (test hook ACCESSORYD_TEST_NO_UDEV)", errno: nil)
    }
}
