import AccessoryTestSupport
import ArgumentParser
import SystemCalls

/// `uevent-send`: multicasts one udev-format uevent to netlink group 2, as udevd would after its
/// rules ran, so that accessoryd's udev monitor sees a device come or go. For tests only, inside
/// `unshare -rn` (uid 0 and a private network namespace; on the host, real listeners would see a
/// fake device). Prints nothing; exit status 0 when sent, 1 on a failure (its reason on stderr).
///
/// Threading: the main thread only.
@main
struct UeventSendCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "uevent-send",
        abstract: "Send a fake udev event (libudev netlink format, group 2). Use inside `unshare -rn`.",
        discussion: """
            Example: uevent-send --action add --devpath /devices/virtual/tty/sim0 \
            --devname /dev/pts/3 --property ID_VENDOR_ID=0403 --property ACCESSORYD_NAME=gps
            """
    )

    @Option(help: "add, remove, change, …")
    var action: String

    @Option(help: ArgumentHelp("The sysfs DEVPATH: the key that pairs a remove with its add.", valueName: "path"))
    var devpath: String

    @Option(help: ArgumentHelp("DEVNAME, the device node (e.g. a pty slave).", valueName: "path"))
    var devname: String?

    @Option(help: "SUBSYSTEM (accessoryd's monitor listens to tty only).")
    var subsystem: String = "tty"

    @Option(help: "SEQNUM; must not be 0.")
    var seqnum: UInt64 = 1

    @Option(
        name: .customLong("property"),
        help: ArgumentHelp("An extra KEY=value property; repeatable.", valueName: "KEY=value")
    )
    var properties: [String] = []

    func validate() throws {
        guard seqnum != 0 else { throw ValidationError("--seqnum must not be 0: libudev drops such events") }
        for p in properties where !(p.firstIndex(of: "=").map { $0 != p.startIndex } ?? false) {
            throw ValidationError("--property \(p): expected KEY=value")
        }
    }

    func run() throws {
        let extra = properties.map { p in
            let eq = p.firstIndex(of: "=")!
            return UeventMessage.Property(String(p[..<eq]), String(p[p.index(after: eq)...]))
        }
        let message = UeventMessage(
            action: action,
            devPath: devpath,
            subsystem: subsystem,
            devName: devname,
            seqnum: seqnum,
            extra: extra
        )
        let sender = try UeventSender()
        try sender.send(message)
    }
}
