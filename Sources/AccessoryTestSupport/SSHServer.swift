import Glibc
import SystemCalls

/// A throwaway OpenSSH server for tests and benchmarks: `sshd -D -e` on 127.0.0.1 on a free port,
/// with its own configuration, a host key and a user key pair made for it in a private folder
/// (0700) under /tmp, and client configurations (``clientConfig``) that trust that host key only
/// and log in as the user running the tests with the throwaway key.
///
/// Its configuration lets the user running the tests in (root included: `PermitRootLogin
/// prohibit-password`), reads the authorized key from the folder (`AuthorizedKeysFile`,
/// `StrictModes no`: the folder is under /tmp) and uses no PAM. ``stop()`` ends sshd by its pid
/// and removes the folder.
///
/// Threading: the thread that made it.
package final class SSHServer {
    package let directory: String
    package let port: Int
    package let pid: pid_t
    /// The sshd log (`-e`: to standard error).
    package let logPath: String

    /// Why no SSH server can be started here: a missing program and its package; nil when fine.
    package static var unavailableReason: String? {
        if access(daemonPath, X_OK) != 0 {
            return "\(daemonPath) is missing: install openssh-server (scripts/install-deps.sh does)"
        }
        return ExternalProgram.missing("ssh", "ssh-keygen")
    }

    package static let daemonPath = "/usr/sbin/sshd"

    package init() throws {
        if let reason = Self.unavailableReason { throw ExternalProgramError(reason) }
        directory = try FileIO.makeTemporaryDirectory(prefix: "/tmp/accessoryd-ssh-")
        try FileIO.changeMode(directory, to: 0o700)
        logPath = directory + "/sshd.log"
        do {
            try Self.keygen(directory + "/host_key")
            try Self.keygen(directory + "/user_key")
            try Self.keygen(directory + "/other_host_key")
            let userKey = try Self.text(directory + "/user_key.pub")
            try FileIO.writeFile(directory + "/authorized_keys", userKey, mode: 0o600)
            // The privilege separation folder that Debian's service makes at boot (sshd refuses
            // to start without it when run as root).
            if getuid() == 0, (try? FileIO.status(ofPath: "/run/sshd")) ?? nil == nil {
                try? FileIO.makeDirectory("/run/sshd", mode: 0o755)
            }
            var started: (pid_t, Int)?
            var lastLog = ""
            for attempt in 0..<8 {
                let port = Self.candidatePort(attempt)
                let config = directory + "/sshd_config"
                try FileIO.writeFile(config, Self.serverConfig(directory: directory, port: port), mode: 0o600)
                let pid = try Self.launch(
                    Self.daemonPath,
                    ["-D", "-e", "-f", config],
                    output: logPath
                )
                if try Self.waitListening(pid: pid, port: port, log: logPath) {
                    started = (pid, port)
                    break
                }
                lastLog = FileIO.readText(logPath)
            }
            guard let started else {
                throw ExternalProgramError("sshd did not start on 127.0.0.1: \(lastLog)")
            }
            (pid, port) = started
            let hostKey = try Self.text(directory + "/host_key.pub")
            let otherKey = try Self.text(directory + "/other_host_key.pub")
            try FileIO.writeFile(directory + "/known_hosts", "[127.0.0.1]:\(port) \(hostKey)", mode: 0o600)
            try FileIO.writeFile(directory + "/wrong_known_hosts", "[127.0.0.1]:\(port) \(otherKey)", mode: 0o600)
        } catch {
            Self.removeTree(directory)
            throw error
        }
    }

    /// Lets `user` (uid `uid`, another than the one running the tests) log in with the throwaway
    /// key too: its own authorized-keys file, owned by it (sshd reads the file as the user). The
    /// folder becomes 0711 so that the user can reach that one file by name; every key in it stays
    /// 0600 and the listing closed. Root only (the file is given to another uid).
    package func authorize(user: String, uid: uid_t) throws {
        let path = directory + "/authorized_keys-" + user
        try FileIO.writeFile(path, try Self.text(directory + "/user_key.pub"), mode: 0o600)
        guard chown(path, uid, gid_t.max) == 0 else {
            throw ExternalProgramError("cannot give \(path) to uid \(uid): errno \(errno)")
        }
        try FileIO.changeMode(directory, to: 0o711)
    }

    /// The URL of this server: `ssh://127.0.0.1:PORT`.
    package var url: String { "ssh://127.0.0.1:\(port)" }

    /// Writes (once) and returns a client configuration file for `ssh -F`: the throwaway key,
    /// this server's host key as the only known one (`wrongHostKey`: another key, so that ssh
    /// refuses the server), batch mode (never a prompt), and with `controlMaster` a shared
    /// connection (`ControlMaster auto`, `ControlPersist 60`) whose socket is in the folder.
    package func clientConfig(wrongHostKey: Bool = false, controlMaster: Bool = false) throws -> String {
        let name = "ssh_config" + (wrongHostKey ? "-wrong" : "") + (controlMaster ? "-cm" : "")
        var text = """
            Host *
              IdentityFile \(directory)/user_key
              IdentitiesOnly yes
              IdentityAgent none
              UserKnownHostsFile \(directory)/\(wrongHostKey ? "wrong_known_hosts" : "known_hosts")
              GlobalKnownHostsFile /dev/null
              StrictHostKeyChecking yes
              UpdateHostKeys no
              BatchMode yes
              LogLevel ERROR

            """
        if controlMaster {
            text += """
                  ControlMaster auto
                  ControlPath \(directory)/cm-%C
                  ControlPersist 60

                """
        }
        let path = directory + "/" + name
        try FileIO.writeFile(path, text, mode: 0o600)
        return path
    }

    /// Ends a persistent ControlMaster started with `config` (`ssh -O exit`), if one runs.
    package func stopControlMaster(config: String) {
        guard let ssh = ExternalProgram.path("ssh"),
            let pid = try? Self.launch(ssh, ["-F", config, "-O", "exit", "-p", String(port), "127.0.0.1"], output: nil)
        else { return }
        _ = Self.reap(pid, seconds: 5)
    }

    /// SIGTERM to sshd (by its pid), reaped, and the folder removed. Sessions still open end
    /// with their clients.
    package func stop() {
        try? ChildProcess.signal(pid, SIGTERM)
        if Self.reap(pid, seconds: 5) == nil {
            try? ChildProcess.signal(pid, SIGKILL)
            _ = try? ChildProcess.wait(pid, block: true)
        }
        Self.removeTree(directory)
    }

    // MARK: - Helpers

    static func serverConfig(directory: String, port: Int) -> String {
        """
        Port \(port)
        ListenAddress 127.0.0.1
        HostKey \(directory)/host_key
        PidFile none
        AuthorizedKeysFile \(directory)/authorized_keys \(directory)/authorized_keys-%u
        PermitRootLogin prohibit-password
        PubkeyAuthentication yes
        PasswordAuthentication no
        KbdInteractiveAuthentication no
        StrictModes no
        UsePAM no
        PrintMotd no
        LogLevel INFO

        """
    }

    /// A port in 20000–59999 from the pid and the clock; a taken one makes sshd exit, and the
    /// next attempt takes another.
    static func candidatePort(_ attempt: Int) -> Int {
        let seed = UInt64(getpid()) &* 2_654_435_761 &+ MonotonicClock.nowNanoseconds() &+ UInt64(attempt) &* 7919
        return 20_000 + Int(seed % 40_000)
    }

    /// Waits (15 s at most) for sshd's "Server listening" line; false when it exited (a port
    /// taken).
    static func waitListening(pid: pid_t, port: Int, log: String) throws -> Bool {
        let deadline = MonotonicClock.nowNanoseconds() + 15_000_000_000
        while MonotonicClock.nowNanoseconds() < deadline {
            if FileIO.readText(log).contains("Server listening on 127.0.0.1 port \(port)") { return true }
            if (try? ChildProcess.wait(pid, block: false)) ?? nil != nil { return false }
            usleep(5_000)
        }
        try? ChildProcess.signal(pid, SIGKILL)
        _ = try? ChildProcess.wait(pid, block: true)
        throw ExternalProgramError("sshd printed no \"Server listening\" line within 15 s: \(FileIO.readText(log))")
    }

    static func keygen(_ path: String) throws {
        let pid = try launch(
            ExternalProgram.locate("ssh-keygen"),
            ["-q", "-t", "ed25519", "-N", "", "-C", "accessoryd-test", "-f", path],
            output: nil
        )
        guard case .exited(0)? = reap(pid, seconds: 20) else {
            throw ExternalProgramError("ssh-keygen failed to make \(path)")
        }
    }

    /// Starts `program` with standard input from /dev/null and its output (both streams) to
    /// `output` (nil: /dev/null).
    static func launch(_ program: String, _ arguments: [String], output: String?) throws -> pid_t {
        let input = try FileIO.open("/dev/null", flags: O_RDONLY)
        let out = try FileIO.open(output ?? "/dev/null", flags: O_WRONLY | O_CREAT | O_APPEND, mode: 0o600)
        let pid = Result { () throws(SyscallError) in
            try ChildProcess.launch(
                program,
                arguments: arguments,
                standardInput: input.rawValue,
                standardOutput: out.rawValue,
                standardError: out.rawValue
            )
        }
        input.close()
        out.close()
        return try pid.get()
    }

    static func reap(_ pid: pid_t, seconds: Double) -> ChildProcess.Termination? {
        let deadline = MonotonicClock.nowNanoseconds() + UInt64(seconds * 1e9)
        while MonotonicClock.nowNanoseconds() < deadline {
            if let ended = (try? ChildProcess.wait(pid, block: false)) ?? nil { return ended }
            usleep(5_000)
        }
        return nil
    }

    static func text(_ path: String) throws -> String {
        String(decoding: try FileIO.readFile(path), as: UTF8.self)
    }

    static func removeTree(_ path: String) {
        for name in (try? FileIO.listDirectory(path)) ?? [] { unlink(path + "/" + name) }
        rmdir(path)
    }
}

/// A test helper program that is missing or failed, with the sentence to show.
///
/// Threading: a value. Any thread.
package struct ExternalProgramError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
