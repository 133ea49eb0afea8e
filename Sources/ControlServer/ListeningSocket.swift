import SystemCalls

/// The control server's listening socket: a Unix stream socket already in the listening state,
/// and the socket file this process created for it (none for one inherited from systemd).
///
/// Make it on any thread before the loops start, so that a bad path stops the daemon with a clear
/// message; then hand it to ``ControlServer``. Clients that connect before the server runs wait in
/// the listen queue.
///
/// Threading: any thread, one owner at a time (`~Copyable`). Dropped without being handed over, it
/// closes the descriptor and leaves the file (a later start replaces it as stale); ``close()``
/// removes the file as well.
package struct ListeningSocket: ~Copyable, Sendable {
    var descriptor: OwnedFD
    let file: SocketFile?

    /// The listening descriptor's number (for logs, and for tests that inject faults on it).
    package var fd: CInt { descriptor.rawValue }

    /// The socket file's path, or `nil` for an inherited descriptor.
    package var path: String? { file?.path }

    /// The path, or "fd N (socket activation)": for log lines.
    package var displayName: String { file?.path ?? "fd \(descriptor.rawValue) (socket activation)" }

    /// The longest socket path accepted: `sockaddr_un` holds 107 bytes, and the socket is first
    /// bound inside a private directory beside the final name (`<dir>/.XXXXXX/s`, at most 9 bytes
    /// longer than the path; ``temporarySuffixLength`` keeps the limit the configuration states).
    package static var maxPathBytes: Int { 107 - temporarySuffixLength }

    static let temporarySuffixLength = 12

    /// Creates a listening socket at `path` with permission bits `mode` and, if given, `group`.
    ///
    /// What may already be at `path`: nothing; a stale socket (nobody answers: replaced
    /// atomically); a live one (refused: ``ControlServerError/alreadyListening(path:)``); anything
    /// else (refused and left untouched: ``ControlServerError/notASocket(path:kind:)``).
    ///
    /// The socket's directory must be a real directory (never a symbolic link), this user's or
    /// root's, and not writable by every user unless sticky
    /// (``ControlServerError/unsafeDirectory(path:_:)``). The socket is bound inside a private
    /// 0700 directory made beside the final name, given its group and mode through that
    /// directory's descriptor, put in the listening state, and only then given its final name
    /// (`linkat`, or `renameat` over a stale socket), so that `path` never exists with the wrong
    /// permissions or without a listener, and no call acts on a name another user could swap for
    /// a symbolic link. No process-wide state (umask, current directory) is touched: any thread,
    /// several at once.
    package init(
        path: String,
        mode: UInt32 = 0o660,
        group: SocketGroup? = nil,
        backlog: Int32 = 128
    ) throws(ControlServerError) {
        precondition(mode <= 0o777, "socket mode \(String(mode, radix: 8)) has bits beyond 0777")
        self = try SocketFileCreation(path: path, mode: mode, group: group, backlog: backlog).run()
    }

    init(descriptor: consuming OwnedFD, file: SocketFile?) {
        self.descriptor = descriptor
        self.file = file
    }

    /// Adopts `listeningFD`, a listening Unix stream socket inherited from the parent (systemd's
    /// socket activation passes fd 3 and up, see `LISTEN_FDS`). It is made non-blocking and
    /// close-on-exec. On error the descriptor is left open and still the caller's. Any thread.
    package init(listeningFD: CInt) throws(ControlServerError) {
        do {
            guard try Socket.isListeningUnixStream(listeningFD) else {
                throw ControlServerError.notAListeningSocket(fd: listeningFD)
            }
            try FileIO.setNonBlocking(listeningFD)
            try FileIO.setCloseOnExec(listeningFD)
        } catch let error as ControlServerError {
            throw error
        } catch let error as SyscallError {
            if error.errno == .notSocket { throw .notAListeningSocket(fd: listeningFD) }
            throw .system("cannot use the inherited descriptor \(listeningFD)", error)
        } catch {
            preconditionFailure("unexpected error \(error)")
        }
        descriptor = OwnedFD(adopting: listeningFD)
        file = nil
    }

    /// Closes the socket and removes its file if the name still refers to it. Any thread.
    package consuming func close() {
        file?.removeIfOurs()
        descriptor.close()
    }
}
