import AccessoryConfig
import AccessoryCore
import Glibc
import SystemCalls

/// Where the configuration came from, and what loading it found. Main thread.
struct ConfigSource {
    static let defaultPath = "/etc/accessoryd/accessoryd.yaml"

    /// The file path, or nil for the embedded default.
    let path: String?
    let configuration: Configuration?
    let issues: [ConfigIssue]

    var name: String { path ?? EmbeddedDefault.fileName }

    enum LoadError: Error, CustomStringConvertible {
        case unreadable(String, SyscallError)
        var description: String {
            switch self {
            case .unreadable(let path, let e): "cannot read the configuration file \(path): \(e.errno)"
            }
        }
    }

    /// An explicit `--config` must exist; without one, the system file is used if present, else
    /// the embedded default. `embedded` (`--embedded-default`) takes the embedded default whatever
    /// /etc holds, so that the demo and the tests run the same configuration on every machine.
    static func resolve(
        explicit: String?,
        embedded: Bool = false,
        runtimeDirectory: String,
        forRunningDaemon: Bool = false
    ) throws -> ConfigSource {
        let path = explicit ?? defaultPath
        if embedded || (explicit == nil && access(path, F_OK) != 0) {
            do {
                let c = try EmbeddedDefault.configuration(runtimeDirectory: runtimeDirectory)
                return ConfigSource(path: nil, configuration: c, issues: [])
            } catch {
                return ConfigSource(path: nil, configuration: nil, issues: error.issues)
            }
        }
        return try load(path: path, runtimeDirectory: runtimeDirectory, forRunningDaemon: forRunningDaemon)
    }

    /// Loads and checks the file; views are also checked against the system (owners, groups,
    /// what is at their paths), their relative paths placed in `runtimeDirectory`, and network
    /// listeners against the ports other programs listen on (`forRunningDaemon`, for
    /// `--check-config`: not the ports of a running `accessoryd`, ``ListenerPreflight``).
    static func load(path: String, runtimeDirectory: String, forRunningDaemon: Bool = false) throws -> ConfigSource {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.readFile(path)
        } catch {
            throw LoadError.unreadable(path, error)
        }
        var (configuration, issues) = ConfigurationLoader.check(bytes: bytes, file: path)
        if let checked = configuration {
            let found =
                ViewPreflight.issues(checked, runtimeDirectory: runtimeDirectory)
                + ListenerPreflight.issues(checked, forRunningDaemon: forRunningDaemon)
            if found.contains(where: { $0.severity == .error }) { configuration = nil }
            issues += found
        }
        return ConfigSource(path: path, configuration: configuration, issues: issues)
    }
}
