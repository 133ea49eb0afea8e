import SystemCalls

/// Sends `sd_notify` messages to the service manager without libsystemd: one datagram per message
/// on an unbound Unix datagram socket, to the address in `NOTIFY_SOCKET` (a path, or `@name` for
/// an abstract address). The kernel attaches our credentials, which is how systemd tells the main
/// process's messages (`NotifyAccess=main`) from others'.
///
/// Threading: any thread. The socket is made once and never changed; each message is one
/// `sendto`, which the kernel keeps whole, so messages from different threads never mix.
package final class ServiceNotifier: Sendable {
    /// Where messages go.
    package let address: Socket.UnixAddress
    /// `NOTIFY_SOCKET` as given, for log lines.
    package let addressText: String
    private let socket: OwnedFD

    /// Longest address `sockaddr_un` holds: 108 bytes less the terminating (or, for an abstract
    /// name, leading) NUL.
    static let maxAddressBytes = 107

    /// The notifier for `environment["NOTIFY_SOCKET"]`, or nil when it is unset or empty (not
    /// started by systemd: notifying is then a no-op, as with `sd_notify`). A value that is not an
    /// absolute path or an `@name` is an error. Any thread.
    package static func fromEnvironment(_ environment: [String: String]) throws(SystemdError) -> ServiceNotifier? {
        guard let value = environment["NOTIFY_SOCKET"], !value.isEmpty else { return nil }
        return try ServiceNotifier(address: address(notifySocket: value), text: value)
    }

    /// Parses a `NOTIFY_SOCKET` value. Pure; any thread.
    package static func address(notifySocket value: String) throws(SystemdError) -> Socket.UnixAddress {
        let address: Socket.UnixAddress
        let length: Int
        if value.hasPrefix("/") {
            address = .path(value)
            length = value.utf8.count
        } else if value.hasPrefix("@") && value.utf8.count > 1 {
            address = .abstract(String(value.dropFirst()))
            length = value.utf8.count - 1
        } else {
            // systemd 254 also accepts `vsock:` addresses (for virtual machines); not supported here.
            throw .badNotifySocket(value, reason: "it is neither an absolute path nor an @abstract name")
        }
        if length > maxAddressBytes {
            throw .badNotifySocket(value, reason: "it is longer than \(maxAddressBytes) bytes")
        }
        if value.utf8.contains(0) { throw .badNotifySocket(value, reason: "it contains a NUL byte") }
        return address
    }

    /// A notifier sending to `address`. Any thread.
    package init(address: Socket.UnixAddress, text: String? = nil) throws(SystemdError) {
        self.address = address
        switch address {
        case .path(let p): addressText = text ?? p
        case .abstract(let n): addressText = text ?? "@" + n
        }
        do {
            socket = try Socket.unixDatagram()
        } catch {
            throw .system("cannot create the notification socket", error)
        }
    }

    /// Sends `message` as one datagram, with `descriptor` attached when given (for
    /// ``NotifyMessage/storeDescriptor(name:)``: systemd keeps its own copy). Any thread.
    package func send(_ message: NotifyMessage, passing descriptor: CInt? = nil) throws(SystemdError) {
        let result: IOResult<Int>
        do {
            if let descriptor {
                result = try Socket.sendTo(socket.rawValue, message.bytes, address, passing: [descriptor])
            } else {
                result = try Socket.sendTo(socket.rawValue, message.bytes, address)
            }
        } catch {
            throw .notifyFailed(address: addressText, error)
        }
        if result == .wouldBlock { throw .notifyDropped(address: addressText) }
    }
}
