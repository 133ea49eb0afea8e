import AccessoryConfig
import AccessoryVersion
import CommandLineOptions
import Glibc
import SystemCalls

/// `accessoryd`: the daemon's command line. Its own small parser (CommandLineOptions), not
/// swift-argument-parser, so the daemon links no Foundation at all. Main thread.
struct AccessorydCommand {
    static let spec = CommandLineSpec(
        program: "accessoryd",
        abstract: "Owns serial and Bluetooth-RFCOMM accessories and serves them to local programs over a Unix socket.",
        discussion: """
            With no configuration file (and no --config), accessoryd runs its embedded default: \
            simulated accessories (echo, an AT modem, a GPS, a SLIP device) served by accessory-sim, \
            with the socket in the runtime directory. --embedded-default runs it even when the system \
            file exists (the demo and the tests, which must not depend on /etc). See accessoryd(8) and \
            accessoryd.yaml(5).
            """,
        version: AccessoryVersion.line("accessoryd"),
        options: [
            .value(
                "config",
                "file",
                completion: .file,
                help: "The configuration file (default /etc/accessoryd/accessoryd.yaml)."
            ),
            .flag(
                "embedded-default",
                help: "Run the embedded default (simulated accessories) even if /etc/accessoryd/accessoryd.yaml exists."
            ),
            .flag(
                "check-config",
                help: "Validate the configuration, print every problem with file:line, and exit 0 (valid) or 1."
            ),
            .value(
                "runtime-dir",
                "dir",
                completion: .directory,
                help:
                    "Runtime directory for the embedded default's socket and the simulators' links (default $RUNTIME_DIRECTORY, else /run/accessoryd as root, else $XDG_RUNTIME_DIR/accessoryd, else /tmp/accessoryd-UID). Created 0700; refused unless it is this user's and writable by nobody else."
            ),
            .flag(
                "print-socket",
                help: "Print the socket path the daemon would listen on (given --config and --runtime-dir) and exit."
            ),
            .value(
                "simulator",
                "path",
                completion: .file,
                help: "Path of the accessory-sim executable (default: next to accessoryd)."
            ),
        ]
    )

    var config: String?
    var embeddedDefault = false
    var checkConfig = false
    var runtimeDir: String?
    var printSocket = false
    var simulator: String?

    /// Parses the process's arguments; prints help, the version or a completion script and
    /// exits, or exits 64 (EX_USAGE, as swift-argument-parser's programs do) on a bad one.
    static func main() -> Never {
        let parsed: ParsedCommandLine
        do {
            parsed = try spec.parse(Array(CommandLine.arguments.dropFirst()))
        } catch {
            usageError(error.description)
        }
        switch parsed {
        case .help: exitAfterPrinting(spec.helpText)
        case .version: exitAfterPrinting(spec.version + "\n")
        case .completionScript(let shell): exitAfterPrinting(spec.completionScript(for: shell))
        case .run(let options):
            let command = AccessorydCommand(
                config: options.value("config"),
                embeddedDefault: options.isSet("embedded-default"),
                checkConfig: options.isSet("check-config"),
                runtimeDir: options.value("runtime-dir"),
                printSocket: options.isSet("print-socket"),
                simulator: options.value("simulator")
            )
            if command.embeddedDefault && command.config != nil {
                usageError("--embedded-default and --config exclude each other: give one")
            }
            exit(command.run())
        }
    }

    static func usageError(_ message: String) -> Never {
        printError("accessoryd: \(message)\n\(spec.usage)\n  See 'accessoryd --help' for more information.")
        exit(64)
    }

    static func exitAfterPrinting(_ text: String) -> Never {
        _ = try? FileIO.write(1, Array(text.utf8))
        exit(0)
    }

    /// Runs what the options ask for; the process's exit status.
    func run() -> Int32 {
        let environment = DaemonEnvironment.current()
        let source: ConfigSource
        do {
            source = try ConfigSource.resolve(
                explicit: config,
                embedded: embeddedDefault,
                runtimeDirectory: runtimeDirectory(environment),
                forRunningDaemon: checkConfig
            )
        } catch {
            printError("accessoryd: \(error)")
            return 1
        }
        if printSocket {
            guard let configuration = source.configuration else {
                for i in source.issues { printError("\(i)") }
                return 1
            }
            // Socket activation would hand over a socket made elsewhere: say so rather than guess.
            if let fds = environment["LISTEN_FDS"], !fds.isEmpty, fds != "0" {
                printError("accessoryd: LISTEN_FDS is set: the daemon would serve the socket systemd passes")
            }
            print(configuration.socket.path)
            return 0
        }
        if checkConfig {
            let issues = source.issues
            for i in issues { printError("\(i)") }
            let errors = issues.filter { $0.severity == .error }.count
            print(errors == 0 ? "\(source.name): configuration is valid" : "\(source.name): \(errors) error(s)")
            return errors == 0 ? 0 : 1
        }
        guard let configuration = source.configuration else {
            for i in source.issues { printError("\(i)") }
            printError("accessoryd: not starting: the configuration has errors")
            return 1
        }
        for i in source.issues where i.severity == .warning { printError("\(i)") }
        let daemon = Daemon(
            configuration: configuration,
            configSource: source,
            runtimeDirectory: runtimeDirectory(environment),
            simulatorPath: simulator ?? Self.siblingExecutable("accessory-sim"),
            environment: environment
        )
        return daemon.run()
    }

    /// The rule clients share to find this daemon's socket (DaemonPaths, in SystemCalls).
    private func runtimeDirectory(_ env: [String: String]) -> String {
        DaemonPaths.runtimeDirectory(explicit: runtimeDir, environment: { env[$0] }, uid: UserDatabase.effectiveUserID)
    }

    static func siblingExecutable(_ name: String) -> String {
        let me = (try? FileIO.readLink("/proc/self/exe")) ?? CommandLine.arguments[0]
        if let slash = me.lastIndex(of: "/") { return String(me[..<slash]) + "/" + name }
        return name
    }
}

func printError(_ s: String) {
    _ = try? FileIO.write(2, Array((s + "\n").utf8))
}

/// The process environment as a dictionary. Any thread.
enum DaemonEnvironment {
    static func current() -> [String: String] {
        var out: [String: String] = [:]
        var p = environ
        while let entry = p.pointee {
            let s = String(cString: entry)
            if let eq = s.firstIndex(of: "=") { out[String(s[..<eq])] = String(s[s.index(after: eq)...]) }
            p += 1
        }
        return out
    }
}

AccessorydCommand.main()
