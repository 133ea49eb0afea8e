/// One `sd_notify` datagram: newline-separated `NAME=value` assignments (see sd_notify(3)).
///
/// Combine with `+`: `.ready + .status("3 accessories ready")` sends both in one datagram, so that
/// the service manager never sees READY=1 without the status that goes with it.
///
/// Threading: a value. Any thread.
package struct NotifyMessage: Sendable, Equatable, CustomStringConvertible {
    /// One assignment.
    package struct Field: Sendable, Equatable {
        package let name: String
        package let value: String

        package init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    package private(set) var fields: [Field]

    package init(_ fields: [Field]) { self.fields = fields }

    /// Start-up is finished: the service is serving (Type=notify).
    package static let ready = NotifyMessage([Field("READY", "1")])
    /// The service is shutting down.
    package static let stopping = NotifyMessage([Field("STOPPING", "1")])
    /// The watchdog keep-alive ping.
    package static let watchdog = NotifyMessage([Field("WATCHDOG", "1")])

    /// A one-line status shown by `systemctl status`. Line breaks and other control characters
    /// become spaces: a newline would end the assignment and start a bogus one.
    package static func status(_ text: String) -> NotifyMessage {
        let line = String(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : Character($0) })
        return NotifyMessage([Field("STATUS", line)])
    }

    /// The service is reloading its configuration; send ``ready`` when done. `MONOTONIC_USEC` is
    /// the CLOCK_MONOTONIC time of the reload's start, which `Type=notify-reload` (systemd 253)
    /// requires and older managers ignore.
    package static func reloading(monotonicMicroseconds: UInt64) -> NotifyMessage {
        NotifyMessage([Field("RELOADING", "1"), Field("MONOTONIC_USEC", String(monotonicMicroseconds))])
    }

    /// Keep the descriptor sent with this message in the service's file descriptor store under
    /// `name` (`FileDescriptorStoreMax=` must allow it): systemd hands it back at the next start
    /// in `LISTEN_FDS`/`LISTEN_FDNAMES`. A name already stored gets a second entry: remove the old
    /// one first. See ``isValidDescriptorName(_:)``.
    ///
    /// systemd drops a stored descriptor that reports a hang-up or an error, unless
    /// `watchHangUp` is false (`FDPOLL=0`): a pty master reports a hang-up whenever no program
    /// has its slave open, which for a view is no reason to let it go.
    package static func storeDescriptor(name: String, watchHangUp: Bool = true) -> NotifyMessage {
        NotifyMessage(
            [Field("FDSTORE", "1"), Field("FDNAME", name)] + (watchHangUp ? [] : [Field("FDPOLL", "0")])
        )
    }

    /// Drop the descriptors stored under `name` (systemd closes its copies).
    package static func removeStoredDescriptor(name: String) -> NotifyMessage {
        NotifyMessage([Field("FDSTOREREMOVE", "1"), Field("FDNAME", name)])
    }

    /// What systemd accepts as an `FDNAME`: 1 ... 255 printable ASCII characters, no `:` (the
    /// separator of `LISTEN_FDNAMES`).
    package static func isValidDescriptorName(_ name: String) -> Bool {
        !name.isEmpty && name.utf8.count <= 255 && name.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != 0x3A }
    }

    package static func + (a: NotifyMessage, b: NotifyMessage) -> NotifyMessage {
        NotifyMessage(a.fields + b.fields)
    }

    /// The datagram's text: each assignment on its own line.
    package var description: String {
        fields.map { "\($0.name)=\($0.value)\n" }.joined()
    }

    /// The datagram's bytes.
    package var bytes: [UInt8] { Array(description.utf8) }
}
