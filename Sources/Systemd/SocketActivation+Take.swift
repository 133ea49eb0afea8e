import SystemCalls

extension SocketActivation {
    /// What ``take(preferredName:environment:pid:)`` found.
    package struct Taken: Sendable, Equatable {
        /// Every passed descriptor (now close-on-exec).
        package let descriptors: [Descriptor]
        /// The one to serve on (see ``SocketActivation/choose(from:preferredName:isListeningStream:)``),
        /// or nil when none was passed or none is a listening stream socket.
        package let chosen: Descriptor?
    }

    /// Takes over the descriptors passed to this process: reads the variables, removes them from
    /// the environment (whatever they said, as `sd_listen_fds(1)` does), checks that each
    /// descriptor is open, makes each close-on-exec, and chooses the control socket. The caller
    /// owns the descriptors from then on (it adopts the chosen one and may close the rest).
    ///
    /// Main thread only, before any other thread is started (it changes the environment).
    package static func take(
        preferredName: String,
        environment: [String: String],
        pid: Int32
    ) throws(SystemdError) -> Taken {
        let parsed: Result<[Descriptor], SystemdError>
        do {
            parsed = .success(try descriptors(environment: environment, pid: pid))
        } catch {
            parsed = .failure(error)
        }
        for name in variables {
            do { try ProcessEnvironment.unset(name) } catch { throw .system("cannot unset \(name)", error) }
        }
        let passed = try parsed.get()
        for d in passed {
            guard FileIO.isOpenDescriptor(d.fd) else { throw .descriptorNotOpen(d.fd) }
            do {
                try FileIO.setCloseOnExec(d.fd)
            } catch {
                throw .system("cannot make descriptor \(d.fd) close-on-exec", error)
            }
        }
        let chosen = choose(from: passed, preferredName: preferredName) { fd in
            (try? Socket.isListeningUnixStream(fd)) ?? false
        }
        return Taken(descriptors: passed, chosen: chosen)
    }
}
