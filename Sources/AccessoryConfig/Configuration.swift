/// The daemon's settings, decoded from `/etc/accessoryd/accessoryd.yaml` by
/// ``ConfigurationLoader`` and checked by ``validate(_:)``.
///
/// The schema (every key optional unless marked; defaults shown; `config/accessoryd.yaml` is
/// the commented example):
///
/// ```yaml
/// socket:
///   path: /run/accessoryd/accessoryd.sock   # absolute, at most 107 bytes
///   mode: "0660"                            # octal, at most 0777
///   group: dialout                          # name or gid; default: the daemon's group
/// limits:
///   max_clients: 256                        # 1 ... 65536
///   max_line_bytes: 65536                   # a request line; 1024 ... 16 MiB
///   client_outbound_bytes: 1048576          # per client; 4096 ... 1 GiB
///   queue_depth: 64                         # per accessory; 1 ... 65536
///   default_timeout_ms: 2000                # 1 ... 86400000
///   max_requests_per_client: 256            # unanswered, parked included; 1 ... 1048576
///   max_connections_per_uid: 64             # root and the daemon's user exempt; 1 ... 65536
///   max_lease_ms: 3600000                   # longest lock lease; 1 ... 86400000
///   default_lease_ms: 600000                # a lock without lease_ms; at most max_lease_ms
///   attach_idle_ms: 3600000                 # an idle attach ends; 1 ... 86400000
///   reserved_connections: 4                 # past max_clients, root and the daemon's user; 0 ... 1024
///   idle_connection_timeout_ms: 10000       # no first request line: closed; 1 ... 86400000
/// log:
///   level: info                 # trace|debug|info|notice|warning|error|critical
/// threads:
///   control: shared             # shared|own: clients on the device loop's thread, or on one of their own
/// hotplug:
///   udev: auto                  # auto|on|off: the libudev monitor (auto: when it can be created)
///   watch: [/dev/serial/by-id]  # more folders to watch with inotify; absolute
///                               # (the folders of configured paths are always watched)
/// accessories:
///   - name: modem               # required; [a-z0-9_.-]{1,64}, unique
///     # exactly one of:
///     path: /dev/ttyUSB0        # absolute
///     match: {vendor_id: "0403", product_id: "6001", serial: "A1B2", by_id: "usb-FTDI_…"}
///                               # at least one key; ids are 4 hex digits
///     rfcomm: {address: "00:11:22:33:44:55", channel: 1}   # both required; channel 1 ... 30
///     simulate: {personality: at-modem, <option>: <scalar>, …}
///                               # echo|at-modem|nmea|framed|script; other keys go to accessory-sim
///     serial:                   # not with rfcomm
///       baud: 115200            # any positive (standard or custom)
///       data_bits: 8            # 5 ... 8
///       parity: none            # none|even|odd|mark|space
///       stop_bits: 1            # 1|2
///       flow: none              # none|rtscts|xonxoff
///       hangup_on_close: true   # false: closing the port keeps DTR up (boards that reset on it)
///     framing:                  # default: line, "\n"
///       type: line              # required: line|slip|cobs|length_prefixed|idle_gap
///       delimiter: "\r\n"       # line: splits received bytes; 1 ... 16 bytes; default "\n"
///       terminator: "\r\n"      # line: appended to sent frames; 0 ... 16 bytes; default = delimiter
///       width: 2                # length_prefixed, required: 1|2|4
///       endian: big             # length_prefixed: big|little
///       gap_ms: 20              # idle_gap, required: 1 ... 60000
///       max_frame_bytes: 8192   # any type: 1 ... 16 MiB; longer frames are dropped
///     response:
///       until: "^(OK|ERROR)$"   # a Swift Regex; collect frames until one matches
///       timeout_ms: 2000        # default: limits.default_timeout_ms
///     unsolicited: ["^RING$"]   # Swift Regexes; matching frames go to subscribers
///     resync:                   # after a request ended without its answer (docs/resync.md)
///       late_ms: 10000          # 0 ... 86400000; the late window is the request's timeout, at least 1 s, at most this
///       probe: {send: "AT", expect: "^OK$", timeout_ms: 500}   # optional; expect is a Swift Regex
///       settle_ms: 50           # 0 ... 60000; quiet time before the next request
///       after_reopen: settle    # settle|late_answer: after a removal, settle only, or first await
///                               # the interrupted transact's answer until its old deadline
///     reconnect: {initial_ms: 100, max_ms: 5000}   # back-off, 1 ... 3600000, initial <= max
///     access: {users: [alice, 1001], groups: [dialout]}   # names or ids; empty: anyone who can reach the socket
///     trace:                    # every byte to and from the device (docs/trace.md)
///       file: /var/log/accessoryd/modem.trace   # required; absolute; no two accessories share one
///       format: text            # text|hexdump|jsonl
///       max_bytes: 10485760     # rotated before it grows past this; 1024 ... 1 TiB
///       keep: 3                 # rotated files kept (file.1 … file.3); 0 ... 1000
///     enabled: true
/// ```
///
/// Equality ignores ``sourceMap`` (where each value came from), so a reload can compare
/// accessories to find the changed ones.
///
/// Threading: a value. Any thread.
public struct Configuration: Sendable, Equatable {
    public var socket: SocketSettings
    public var limits: Limits
    public var log: LogSettings
    public var hotplug: HotplugSettings
    public var threads: ThreadSettings
    public var accessories: [AccessorySettings]
    /// The file and line each key path came from (empty for a configuration built in code).
    public var sourceMap: SourceMap

    public init(
        socket: SocketSettings = SocketSettings(),
        limits: Limits = Limits(),
        log: LogSettings = LogSettings(),
        hotplug: HotplugSettings = HotplugSettings(),
        threads: ThreadSettings = ThreadSettings(),
        accessories: [AccessorySettings] = [],
        sourceMap: SourceMap = SourceMap()
    ) {
        self.socket = socket
        self.limits = limits
        self.log = log
        self.hotplug = hotplug
        self.threads = threads
        self.accessories = accessories
        self.sourceMap = sourceMap
    }

    /// The accessory named `name`.
    public func accessory(named name: String) -> AccessorySettings? {
        accessories.first { $0.name == name }
    }
}
