import AccessoryConfig
import ArgumentParser
import Glibc
import SystemCalls

/// `accessoryd`: the daemon's command line. Main thread.
struct AccessorydCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "accessoryd",
        abstract: "Owns serial and Bluetooth-RFCOMM accessories and serves them to local programs over a Unix socket.",
        discussion: """
            With no configuration file (and no --config), accessoryd runs its embedded default: \
            simulated accessories (echo, an AT modem, a GPS, a SLIP device) served by accessory-sim, \
            with the socket in the runtime directory. --embedded-default runs it even when the system \
            file exists (the demo and the tests, which must not depend on /etc). See README.md for the \
            configuration and the protocol.
            """
    )

    @Option(name: .long, help: "The configuration file (default /etc/accessoryd/accessoryd.yaml).")
    var config: String?

    @Flag(
        name: .long,
        help: "Run the embedded default (simulated accessories) even if /etc/accessoryd/accessoryd.yaml exists."
    )
    var embeddedDefault = false

    @Flag(name: .long, help: "Validate the configuration, print every problem with file:line, and exit 0 (valid) or 1.")
    var checkConfig = false

    @Option(
        name: .long,
        help:
            "Runtime directory for the embedded default's socket and the simulators' links (default $RUNTIME_DIRECTORY, else /run/accessoryd as root, else $XDG_RUNTIME_DIR/accessoryd, else /tmp/accessoryd-UID). Created 0700; refused unless it is this user's and writable by nobody else."
    )
    var runtimeDir: String?

    @Flag(
        name: .long,
        help: "Print the socket path the daemon would listen on (given --config and --runtime-dir) and exit."
    )
    var printSocket = false

    @Option(name: .long, help: "Path of the accessory-sim executable (default: next to accessoryd).")
    var simulator: String?

    func validate() throws {
        if embeddedDefault && config != nil {
            throw ValidationError("--embedded-default and --config exclude each other: give one")
        }
    }

    func run() throws {
        let environment = DaemonEnvironment.current()
        let source: ConfigSource
        do {
            source = try ConfigSource.resolve(
                explicit: config,
                embedded: embeddedDefault,
                runtimeDirectory: runtimeDirectory(environment)
            )
        } catch {
            printError("accessoryd: \(error)")
            throw ExitCode(1)
        }
        if printSocket {
            guard let configuration = source.configuration else {
                for i in source.issues { printError("\(i)") }
                throw ExitCode(1)
            }
            // Socket activation would hand over a socket made elsewhere: say so rather than guess.
            if let fds = environment["LISTEN_FDS"], !fds.isEmpty, fds != "0" {
                printError("accessoryd: LISTEN_FDS is set: the daemon would serve the socket systemd passes")
            }
            print(configuration.socket.path)
            return
        }
        if checkConfig {
            let issues = source.issues
            for i in issues { printError("\(i)") }
            let errors = issues.filter { $0.severity == .error }.count
            print(errors == 0 ? "\(source.name): configuration is valid" : "\(source.name): \(errors) error(s)")
            throw ExitCode(errors == 0 ? 0 : 1)
        }
        guard let configuration = source.configuration else {
            for i in source.issues { printError("\(i)") }
            printError("accessoryd: not starting: the configuration has errors")
            throw ExitCode(1)
        }
        for i in source.issues where i.severity == .warning { printError("\(i)") }
        let daemon = Daemon(
            configuration: configuration,
            configSource: source,
            runtimeDirectory: runtimeDirectory(environment),
            simulatorPath: simulator ?? Self.siblingExecutable("accessory-sim"),
            environment: environment
        )
        let code = daemon.run()
        throw ExitCode(code)
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
