/// Socket activation as `sd_listen_fds_with_names` reads it: the service manager passes
/// `LISTEN_FDS` descriptors starting at fd 3, names them in `LISTEN_FDNAMES` (colon-separated,
/// from `FileDescriptorName=`), and sets `LISTEN_PID` to the process they are meant for.
///
/// ``descriptors(environment:pid:)`` is the pure reading of the variables;
/// ``take(preferredName:environment:pid:)`` (SocketActivation+Take.swift) acts on it.
///
/// Threading: pure functions; any thread.
package enum SocketActivation {
    /// The first passed descriptor (`SD_LISTEN_FDS_START`).
    package static let firstDescriptor: Int32 = 3

    /// The variables that carry socket activation; removed once read, so that children (the
    /// simulators) do not believe the descriptors are theirs.
    package static let variables = ["LISTEN_PID", "LISTEN_FDS", "LISTEN_FDNAMES"]

    /// A descriptor passed by the service manager.
    package struct Descriptor: Sendable, Equatable {
        package let fd: Int32
        /// Its `FileDescriptorName=`, or "unknown" (systemd's name when none is given).
        package let name: String

        package init(fd: Int32, name: String) {
            self.fd = fd
            self.name = name
        }
    }

    /// The descriptors passed to process `pid`: empty when `LISTEN_PID` is unset or names another
    /// process (then the variables were not meant for us) or `LISTEN_FDS` is 0. Bad numbers and a
    /// name count that does not match are errors.
    package static func descriptors(environment: [String: String], pid: Int32) throws(SystemdError) -> [Descriptor] {
        guard let pidText = environment["LISTEN_PID"] else { return [] }
        guard let target = Int32(pidText), target > 0 else {
            throw .badListenVariable(variable: "LISTEN_PID", value: pidText)
        }
        guard target == pid else { return [] }
        let countText = environment["LISTEN_FDS"] ?? "0"
        // The upper bound keeps `3 + count` far from overflow; no real unit passes thousands.
        guard let count = Int32(countText), count >= 0, count <= 4096 else {
            throw .badListenVariable(variable: "LISTEN_FDS", value: countText)
        }
        var names = Array(repeating: "unknown", count: Int(count))
        if let namesText = environment["LISTEN_FDNAMES"], count > 0 {
            let given = namesText.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard given.count == Int(count) else {
                throw .listenNamesMismatch(names: given.count, descriptors: Int(count))
            }
            names = given
        }
        return (0..<count).map { Descriptor(fd: firstDescriptor + $0, name: names[Int($0)]) }
    }

    /// The descriptor to serve the control socket on: the one named `preferredName` if any, else
    /// the first for which `isListeningStream` is true (it checks the socket for real). Nil when
    /// none fits.
    package static func choose(
        from descriptors: [Descriptor],
        preferredName: String,
        isListeningStream: (Int32) -> Bool
    ) -> Descriptor? {
        if let named = descriptors.first(where: { $0.name == preferredName }) { return named }
        return descriptors.first { isListeningStream($0.fd) }
    }
}
