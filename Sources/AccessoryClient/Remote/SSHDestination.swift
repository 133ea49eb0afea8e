/// A remote host reached through the system's OpenSSH client: `ssh://[user@]host[:port]`, the
/// form `docker -H ssh://` takes.
///
/// The URL is checked strictly, because its parts become arguments of `ssh`: the user is
/// letters, digits, `.`, `_` and `-`; the host a name or IPv4 address of the same characters
/// (an alias of `~/.ssh/config` included), or an IPv6 address in brackets; neither may start with
/// `-` (which `ssh` would read as an option); the port a number from 1 to 65535. No password,
/// path, query or fragment. The host is passed after `--` and the user and port as `-l` and
/// `-p`, so no part is ever read as an option.
///
/// Threading: a value. Any thread.
package struct SSHDestination: Sendable, Hashable, CustomStringConvertible {
    package let user: String?
    package let host: String
    package let port: Int?

    /// Parses `ssh://[user@]host[:port]`; throws a sentence that says what is wrong.
    package init(url: String) throws(SSHDestinationError) {
        guard url.hasPrefix("ssh://") else {
            throw SSHDestinationError(url, "only ssh://[user@]host[:port] is supported")
        }
        var rest = Substring(url.dropFirst("ssh://".count))
        if rest.hasSuffix("/") { rest = rest.dropLast() }  // `ssh://host/`: a path of nothing
        if let bad = rest.first(where: { "/?#".contains($0) }) {
            throw SSHDestinationError(url, "a host URL has no path, query or fragment (found \"\(bad)\")")
        }
        var user: String?
        if let at = rest.lastIndex(of: "@") {
            let name = rest[..<at]
            guard Self.isName(name) else {
                throw SSHDestinationError(
                    url,
                    "the user name must be letters, digits, '.', '_' or '-', not starting with '-' (no password)"
                )
            }
            user = String(name)
            rest = rest[rest.index(after: at)...]
        }
        var portText: Substring?
        let hostText: Substring
        if rest.hasPrefix("[") {
            guard let close = rest.firstIndex(of: "]") else {
                throw SSHDestinationError(url, "an IPv6 address in brackets needs its closing ']'")
            }
            hostText = rest[rest.index(after: rest.startIndex)..<close]
            let after = rest[rest.index(after: close)...]
            if !after.isEmpty {
                guard after.hasPrefix(":") else { throw SSHDestinationError(url, "unexpected text after the ']'") }
                portText = after.dropFirst()
            }
            guard !hostText.isEmpty, hostText.allSatisfy({ $0.isHexDigit || $0 == ":" || $0 == "." }) else {
                throw SSHDestinationError(url, "the bracketed host must be an IPv6 address")
            }
        } else {
            if let colon = rest.firstIndex(of: ":") {
                hostText = rest[..<colon]
                portText = rest[rest.index(after: colon)...]
            } else {
                hostText = rest
            }
            guard Self.isName(hostText) else {
                throw SSHDestinationError(
                    url,
                    hostText.isEmpty
                        ? "the host is missing"
                        : "the host must be letters, digits, '.', '_' or '-', not starting with '-'"
                )
            }
        }
        var port: Int?
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.allSatisfy(\.isASCIIDigit),
                let number = Int(portText), (1...65_535).contains(number)
            else {
                throw SSHDestinationError(url, "the port must be a number from 1 to 65535")
            }
            port = number
        }
        self.user = user
        self.host = String(hostText)
        self.port = port
    }

    /// The URL again, in its canonical form.
    package var description: String {
        let name = host.contains(":") ? "[\(host)]" : host
        return "ssh://" + (user.map { $0 + "@" } ?? "") + name + (port.map { ":\($0)" } ?? "")
    }

    /// The arguments of `ssh` that run `remoteCommand` (already checked) followed by
    /// `dial-stdio` on this host: no terminal (`-T`), the user and port as options, the host
    /// after `--`.
    package func sshArguments(configFile: String?, remoteCommand: RemoteCommand) -> [String] {
        var arguments: [String] = []
        if let configFile { arguments += ["-F", configFile] }
        if let user { arguments += ["-l", user] }
        if let port { arguments += ["-p", String(port)] }
        arguments += ["-T", "--", host]
        return arguments + remoteCommand.words + ["dial-stdio"]
    }

    private static func isName(_ text: Substring) -> Bool {
        guard let first = text.first, first != "-" else { return false }
        return text.allSatisfy { $0.isASCIIAlphanumeric || $0 == "." || $0 == "_" || $0 == "-" }
    }
}

/// A host URL that ``SSHDestination`` refuses, and why.
///
/// Threading: a value. Any thread.
package struct SSHDestinationError: Error, Sendable, Hashable, CustomStringConvertible {
    package let url: String
    package let reason: String

    init(_ url: String, _ reason: String) {
        self.url = url
        self.reason = reason
    }

    package var description: String { "invalid host \"\(url)\": \(reason)" }
}

extension Character {
    var isASCIIDigit: Bool { ("0"..."9").contains(self) }
    var isASCIIAlphanumeric: Bool { isASCII && (isLetter || isNumber) }
}
