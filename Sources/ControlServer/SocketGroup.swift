import SystemCalls

/// The group a created socket file is given (so that its members may connect under mode 0660).
///
/// Threading: a value. Any thread.
package enum SocketGroup: Sendable, Hashable, CustomStringConvertible {
    case name(String)
    case id(UInt32)

    package var description: String {
        switch self {
        case .name(let name): name
        case .id(let id): String(id)
        }
    }

    /// The numeric group id. Any thread (may read the group database).
    func resolve() throws(ControlServerError) -> UInt32 {
        switch self {
        case .id(let id):
            return id
        case .name(let name):
            let found: UInt32?
            do { found = try UserDatabase.groupID(named: name) } catch {
                throw .system("cannot look up the group \"\(name)\"", error)
            }
            guard let found else { throw .unknownGroup(name) }
            return found
        }
    }
}
