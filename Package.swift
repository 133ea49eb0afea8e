// swift-tools-version: 6.1
// accessoryd: a Linux daemon that owns serial and Bluetooth-RFCOMM accessories.
// Targets and their layering: docs/architecture.md ("Modules"), whose module graph is generated from this
// file by scripts/module-graph.py (`make docs-check` fails when it differs); dependencies point down.
import PackageDescription

let strict: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    // Dynamic exclusivity checks stay on in debug builds, where the tests run; in release they
    // cost a sixth of the instructions of a request (bench/profile/request-profile.py). This flag
    // covers every field, so no field needs `@exclusivity(unchecked)`: with or without those, the
    // release ops-bench is the same machine code (docs/ioloop.md, "Exclusivity checks").
    .unsafeFlags(["-enforce-exclusivity=unchecked"], .when(configuration: .release)),
    // Each function in a section of its own, so that the link order (packaging/accessoryd.order)
    // can place it: without this a file's functions are one section and stay together. The
    // compiler skips code generation when a module's IR is unchanged, so a flag like this one
    // takes effect in an existing build folder only after its objects are deleted.
    .unsafeFlags(["-Xfrontend", "-function-sections"], .when(configuration: .release)),
]

/// This manifest's folder: the linker runs in another, so the order file needs a full path.
let packageRoot = String("\(#filePath)".dropLast("/Package.swift".count))

/// How the three shipped programs are linked in release (docs/packaging.md, "Footprint"): with lld,
/// relative relocations packed (DT_RELR, glibc 2.36: 6 KB instead of 750 KB of `.rela.dyn` read
/// at every start) and without `-export-dynamic` (which the static runtime's link arguments add:
/// 520 KB of exported symbols of our own code that nothing looks up). Together 1.3 MB smaller
/// stripped and about 1.9 MB less peak RSS (bench/footprint/footprint.py). The functions the
/// daemon runs are placed side by side (packaging/accessoryd.order, `make link-order`): the
/// kernel maps code 64 KiB around each fault, so scattered hot functions cost resident pages
/// (peak RSS 8.6 -> 7.2 MiB), and the compiler's unnamed helpers, which no order file can name, are
/// gathered in one place (packaging/unnamed-functions.ld). libstdc++ is linked statically by
/// `make release` (see Makefile).
let shippedLinking: [LinkerSetting] = [
    .unsafeFlags(
        [
            "-use-ld=lld", "-Xlinker", "-z", "-Xlinker", "pack-relative-relocs", "-Xlinker", "--no-export-dynamic",
            "-Xlinker", "--symbol-ordering-file=" + packageRoot + "/packaging/accessoryd.order",
            "-Xlinker", "--no-warn-symbol-ordering",
            "-Xlinker", "--script=" + packageRoot + "/packaging/unnamed-functions.ld",
        ],
        .when(configuration: .release)
    )
]

let package = Package(
    name: "accessoryd",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "IOLoop", targets: ["IOLoop"])
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-system", from: "1.8.1"),
        .package(url: "https://github.com/apple/swift-collections", from: "1.6.0"),
        // accessoryctl and accessory-sim (FoundationEssentials, linked statically; no ICU). The daemon has its own parser.
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // C: what `import Glibc` does not export (epoll, eventfd, timerfd, termios2, ptys, RFCOMM, …).
        .target(name: "CAccessoryShims"),
        // The only Swift module that calls libc.
        .target(
            name: "SystemCalls",
            dependencies: [
                "CAccessoryShims",
                .product(name: "SystemPackage", package: "swift-system"),
            ],
            swiftSettings: strict
        ),
        // The CFRunLoop-style epoll loop.
        .target(
            name: "IOLoop",
            dependencies: [
                "SystemCalls",
                "CAccessoryShims",
                .product(name: "HeapModule", package: "swift-collections"),
            ],
            swiftSettings: strict
        ),
        // LoopOperation, DeviceQueue, conditions, observers, exclusivity.
        .target(
            name: "Operations",
            dependencies: ["IOLoop", .product(name: "DequeModule", package: "swift-collections")],
            swiftSettings: strict
        ),
        // SerialPort, RFCOMMSocket and the framers.
        .target(name: "Transports", dependencies: ["IOLoop", "SystemCalls", "CAccessoryShims"], swiftSettings: strict),
        // Typed configuration decoded from YAML, with file:line errors and "did you mean" hints.
        .target(name: "AccessoryConfig", dependencies: ["YAMLTree", "JSONCodec"], swiftSettings: strict),
        // libyaml, called only from YAMLTree.
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        // YAML text to a node tree (libyaml's parser): the configuration's and the scripts' reader.
        .target(name: "YAMLTree", dependencies: ["CYAML"], swiftSettings: strict),
        // The daemon's command line (long options, help, completion scripts): no Foundation, unlike
        // swift-argument-parser, which the other programs use.
        .target(name: "CommandLineOptions", swiftSettings: strict),
        // The version the three programs print (one constant).
        .target(name: "AccessoryVersion", swiftSettings: strict),
        // JSON text to values and back (a strict parser, a writer into preallocated buffers), base64,
        // UTF-8 validation and the closest-name suggestion: no Foundation, nothing protocol-specific.
        .target(name: "JSONCodec", swiftSettings: strict),
        // The JSON-RPC protocol's messages: requests, responses, notifications, the typed results.
        .target(name: "ControlProtocol", dependencies: ["JSONCodec"], swiftSettings: strict),
        // Telnet and RFC 2217's COM-PORT-OPTION as values fed bytes: the network listeners' protocol.
        .target(name: "TelnetComPort", swiftSettings: strict),
        // Simulated accessories on pseudo-terminals (library, so tests can run them in-process).
        .target(
            name: "AccessorySimulator",
            dependencies: [
                "IOLoop", "SystemCalls", "YAMLTree", "TrafficTrace", "ControlProtocol", "JSONCodec", "Transports",
            ],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "accessory-sim",
            dependencies: [
                "AccessorySimulator", "IOLoop", "SystemCalls", "AccessoryVersion",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict,
            linkerSettings: shippedLinking
        ),
        // Traffic traces: the trace file layouts, rotation, and the writer thread with its bounded buffer.
        .target(
            name: "TrafficTrace",
            dependencies: ["ControlProtocol", "JSONCodec", "SystemCalls"],
            swiftSettings: strict
        ),
        // sd_notify, the watchdog settings and socket activation, without libsystemd.
        .target(name: "Systemd", dependencies: ["SystemCalls"], swiftSettings: strict),
        // The Unix-socket JSON-RPC server: listener, connections, limits, peer credentials.
        .target(
            name: "ControlServer",
            dependencies: ["IOLoop", "SystemCalls", "ControlProtocol", "JSONCodec"],
            swiftSettings: strict
        ),
        // libudev, called only from Hotplug.
        .systemLibrary(name: "CUdev", pkgConfig: "libudev", providers: [.apt(["libudev-dev"])]),
        // udev monitor and enumeration, the by-id folder watcher, identity matching.
        .target(
            name: "Hotplug",
            dependencies: ["IOLoop", "SystemCalls", "CUdev"],
            swiftSettings: strict
        ),
        // Accessories: registry, state machine, request operations, access policy.
        .target(
            name: "AccessoryCore",
            dependencies: [
                "IOLoop", "SystemCalls", "Operations", "Transports", "AccessoryConfig", "ControlProtocol", "JSONCodec",
                "Hotplug",
                "TrafficTrace", "TelnetComPort",
            ],
            swiftSettings: strict
        ),
        // The async/await client used by accessoryctl and the tests (a target, not a product).
        .target(
            name: "AccessoryClient",
            dependencies: ["ControlProtocol", "JSONCodec", "SystemCalls", "IOLoop"],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "accessoryd",
            dependencies: [
                "AccessoryCore", "ControlServer", "AccessoryConfig", "ControlProtocol", "JSONCodec", "IOLoop",
                "SystemCalls",
                "Systemd", "Hotplug", "AccessoryVersion", "CommandLineOptions",
            ],
            swiftSettings: strict,
            linkerSettings: shippedLinking
        ),
        // The pure parts of accessoryctl's interactive attach: escape key, mappings, screen, log.
        .target(name: "AttachTerminal", swiftSettings: strict),
        // The command-line client. SystemCalls and IOLoop: its output, environment and signals.
        .executableTarget(
            name: "accessoryctl",
            dependencies: [
                "AccessoryClient", "ControlProtocol", "JSONCodec", "SystemCalls", "IOLoop", "TrafficTrace",
                "AttachTerminal",
                "AccessoryVersion",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict,
            linkerSettings: shippedLinking
        ),
        // Benchmarks: programs that print tables (see docs/performance.md).
        .executableTarget(
            name: "loop-bench",
            dependencies: ["IOLoop"],
            path: "bench/loop-bench",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "ops-bench",
            dependencies: ["IOLoop", "Operations"],
            path: "bench/ops-bench",
            swiftSettings: strict
        ),
        .executableTarget(
            name: "serial-bench",
            dependencies: ["IOLoop", "Transports", "SystemCalls"],
            path: "bench/serial-bench",
            swiftSettings: strict
        ),
        // What the SSH hop of `accessoryctl --host ssh://…` costs (docs/remote.md).
        .executableTarget(
            name: "remote-bench",
            dependencies: ["AccessoryClient", "AccessoryTestSupport", "SystemCalls"],
            path: "bench/remote-bench",
            swiftSettings: strict
        ),
        // accessoryd beside direct, socat and ser2net (docs/performance.md, "How accessoryd compares");
        // echo-accessory is its pty peer.
        .executableTarget(
            name: "compare-bench",
            dependencies: ["ControlProtocol", "JSONCodec", "SystemCalls"],
            path: "bench/compare-bench",
            swiftSettings: strict
        ),
        // The soak program: accessoryd under random load with kills, cancels and unplugs.
        .executableTarget(
            name: "soak",
            dependencies: ["ControlProtocol", "JSONCodec", "IOLoop", "SystemCalls", "AccessoryTestSupport"],
            path: "soak",
            swiftSettings: strict
        ),
        .executableTarget(name: "echo-accessory", path: "bench/echo-accessory"),
        .target(
            name: "AccessoryTestSupport",
            dependencies: ["IOLoop", "SystemCalls"],
            swiftSettings: strict
        ),
        // Sends a udev-format uevent to netlink group 2 (hot-plug tests from a shell, under unshare -rn).
        .executableTarget(
            name: "uevent-send",
            dependencies: [
                "AccessoryTestSupport", "SystemCalls",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "HotplugTests",
            dependencies: ["Hotplug", "IOLoop", "SystemCalls", "AccessoryTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SystemCallsTests",
            dependencies: ["SystemCalls", "AccessoryTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "OperationsTests",
            dependencies: ["Operations", "IOLoop", "SystemCalls", "AccessoryTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TransportsTests",
            dependencies: ["Transports", "IOLoop", "SystemCalls", "AccessoryTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "SimulatorTests",
            dependencies: ["AccessorySimulator", "IOLoop", "SystemCalls", "AccessoryTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ConfigAndProtocolTests",
            dependencies: [
                "AccessoryConfig", "ControlProtocol", "JSONCodec", "YAMLTree", "AccessoryTestSupport", "TelnetComPort",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ControlServerTests",
            dependencies: [
                "ControlServer", "ControlProtocol", "JSONCodec", "IOLoop", "SystemCalls", "AccessoryTestSupport",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ClientTests",
            dependencies: [
                "AccessoryClient", "ControlProtocol", "JSONCodec", "IOLoop", "SystemCalls", "AccessoryTestSupport",
            ],
            swiftSettings: strict
        ),
        .testTarget(name: "AttachTerminalTests", dependencies: ["AttachTerminal"], swiftSettings: strict),
        .testTarget(
            name: "AccessoryCoreTests",
            dependencies: [
                "AccessoryCore", "Operations", "Transports", "AccessoryConfig", "ControlProtocol", "JSONCodec",
                "IOLoop",
                "SystemCalls", "AccessorySimulator", "AccessoryTestSupport", "Hotplug", "TrafficTrace",
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "IOLoopTests",
            dependencies: ["IOLoop", "SystemCalls", "AccessoryTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(name: "CommandLineOptionsTests", dependencies: ["CommandLineOptions"], swiftSettings: strict),
        .testTarget(
            name: "SystemdTests",
            dependencies: ["Systemd", "SystemCalls", "AccessoryTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "TrafficTraceTests",
            dependencies: ["TrafficTrace", "ControlProtocol", "JSONCodec", "SystemCalls", "AccessoryTestSupport"],
            swiftSettings: strict
        ),
        .testTarget(
            name: "IntegrationTests",
            dependencies: [
                "ControlProtocol", "JSONCodec", "SystemCalls", "AccessoryTestSupport", "AccessoryVersion",
                "TrafficTrace",
            ],
            swiftSettings: strict
        ),
    ]
)
