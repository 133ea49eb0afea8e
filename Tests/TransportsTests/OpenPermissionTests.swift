import AccessoryTestSupport
import Glibc
import IOLoop
import Synchronization
import SystemCalls
import Testing
import Transports

/// What opening a serial device says when the kernel refuses it: `EACCES` (file permissions)
/// keeps the group hint, `EPERM` (a device cgroup such as systemd's `DevicePolicy=`) names the
/// policy and the `DeviceAllow=` line to add. The refusals are injected through the system-call
/// seam on this thread only (tests run as root, whom the kernel lets open a pty slave).
@Suite struct OpenPermissionTests {
    /// Fails the first `open` on this thread with `errno`, then lets calls through (the hint's
    /// own read of /proc/devices must reach the kernel).
    private func refusingFirstOpen(_ errno: Errno, _ body: () -> Void) {
        let me = pthread_self()
        let remaining = Atomic<Int>(1)
        let token = FaultInjection.install { name, _ in
            guard name == .open, pthread_equal(pthread_self(), me) != 0 else { return nil }
            return remaining.subtract(1, ordering: .relaxed).oldValue > 0 ? .error(errno) : nil
        }
        defer { FaultInjection.remove(token) }
        body()
    }

    @Test func eaccesKeepsTheGroupHint() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let pty = try TestPty()
        refusingFirstOpen(.permissionDenied) {
            #expect(throws: TransportError.permissionDenied(path: pty.slavePath)) {
                _ = try SerialPort.open(path: pty.slavePath, settings: SerialSettings(), on: loop)
            }
        }
        #expect(TransportError.permissionDenied(path: pty.slavePath).description.contains("dialout"))
    }

    @Test func epermNamesTheDevicePolicyAndTheLineToAdd() throws {
        let loop = try IOLoop.forCurrentThread()
        defer { loop.shutdown() }
        let pty = try TestPty()
        var thrown: TransportError?
        refusingFirstOpen(.notPermitted) {
            do throws(TransportError) {
                _ = try SerialPort.open(path: pty.slavePath, settings: SerialSettings(), on: loop)
            } catch {
                thrown = error
            }
        }
        // A pty slave's major number is the "pts" driver's in /proc/devices: systemd's char-pts.
        #expect(thrown == .refusedByDevicePolicy(path: pty.slavePath, deviceAllow: "DeviceAllow=char-pts rw"))
        let text = thrown?.description ?? ""
        #expect(text.contains("DevicePolicy="))
        #expect(text.contains("DeviceAllow=char-pts rw"))
        #expect(!text.contains("dialout"), "the group is not what refused it: \(text)")
    }

    /// Major 4 is both the virtual consoles (`tty`) and the 8250 UARTs (`ttyS`).
    static let procDevices = """
        Character devices:
          1 mem
          4 /dev/vc/0
          4 tty
          4 ttyS
        136 pts
        188 ttyUSB
        204 ttyAMA

        Block devices:
          8 sd
        188 notachar
        """

    @Test func theDriverNameComesFromTheMajorNumberAndTheFileName() {
        #expect(DeviceAllowHint.driverNames(major: 4, procDevices: Self.procDevices) == ["/dev/vc/0", "tty", "ttyS"])
        #expect(DeviceAllowHint.driverNames(major: 188, procDevices: Self.procDevices) == ["ttyUSB"])
        #expect(
            DeviceAllowHint.driverNames(major: 8, procDevices: Self.procDevices) == [],
            "block devices are not char-"
        )
        let major4 = DeviceAllowHint.driverNames(major: 4, procDevices: Self.procDevices)
        #expect(DeviceAllowHint.choose(among: major4, for: "ttyS1") == "ttyS")
        #expect(DeviceAllowHint.choose(among: major4, for: "tty3") == "tty")
        #expect(DeviceAllowHint.choose(among: ["pts"], for: "7") == "pts")
        // No major number to go by: the file name without its digits.
        #expect(DeviceAllowHint.choose(among: [], for: "ttyTHS2") == "ttyTHS")
        #expect(DeviceAllowHint.choose(among: [], for: "12") == nil)
    }
}
