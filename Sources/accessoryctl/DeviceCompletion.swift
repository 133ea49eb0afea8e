import AccessoryClient
import ArgumentParser

/// Shell completion of accessory names: asks the running daemon (`devices.list`), within a
/// second; nothing is offered when it cannot be reached.
///
/// Threading: stateless. Any thread.
enum DeviceCompletion {
    static let kind = CompletionKind.custom { arguments, _, prefix in await names(arguments, prefix: prefix) }

    static func names(_ arguments: [String], prefix: String) async -> [String] {
        var explicit: String?
        if let index = arguments.firstIndex(of: "--socket"), index + 1 < arguments.count {
            explicit = arguments[index + 1]
        }
        let path = GlobalOptions.socketPath(explicit: explicit)
        let names = await withTaskGroup(of: [String]?.self) { group in
            group.addTask {
                guard let connection = try? await AccessoryConnection.connect(socketPath: path, reconnect: .never)
                else { return [] }
                defer { connection.close() }
                return (try? await connection.listDevices())?.map(\.name) ?? []
            }
            group.addTask {
                try? await Task.sleep(for: .seconds(1))
                return nil
            }
            let first = await group.next() ?? nil
            group.cancelAll()
            return first ?? []
        }
        return names.filter { $0.hasPrefix(prefix) }
    }
}
