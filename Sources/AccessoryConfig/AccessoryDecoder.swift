import YAMLTree

/// Decodes one entry of `accessories:` (see ``Configuration`` for the schema).
///
/// Threading: confined to the decoding call that creates it.
struct AccessoryDecoder {
    let context: DecodeContext

    static let keys = [
        "name", "path", "match", "rfcomm", "simulate", "serial", "framing", "response", "unsolicited", "resync",
        "reconnect", "access", "trace", "enabled", "views", "network",
    ]
    static let sourceKeys = ["path", "match", "rfcomm", "simulate"]

    /// The accessory, or `nil` (with issues recorded) if it has no usable name or source.
    func decode(_ node: Node, path: String) -> AccessorySettings? {
        guard let reader = MappingReader(node, path: path, context: context, accepted: Self.keys) else { return nil }
        let name = reader.string("name", what: "a name ([a-z0-9_.-]+)")
        if !reader.has("name") {
            reader.errorHere("missing required key \"name\"")
        }
        let source = decodeSource(reader)
        var accessory = AccessorySettings(name: name ?? "", source: source ?? .path(""))
        if let serial = reader.mapping(
            "serial",
            accepted: ["baud", "data_bits", "parity", "stop_bits", "flow", "hangup_on_close"]
        ) {
            if case .rfcomm? = source {
                reader.error(
                    "serial",
                    "serial settings do not apply to an rfcomm accessory (a Bluetooth socket has no line settings)"
                )
            }
            accessory.serial = decodeSerial(serial)
        }
        if let framing = FramingDecoder(context: context).decode(reader) {
            accessory.framing = framing
        }
        if let response = reader.mapping("response", accepted: ["until", "timeout_ms"]) {
            accessory.response.until = response.string("until", what: "a regular expression")
            accessory.response.timeoutMs = response.integer("timeout_ms", Rules.timeoutMs)
        }
        accessory.unsolicited = reader.strings("unsolicited", what: "a regular expression") ?? []
        if let resync = reader.mapping("resync", accepted: ["settle_ms", "late_ms", "probe", "after_reopen"]) {
            accessory.resync = decodeResync(resync)
        }
        if let reconnect = reader.mapping("reconnect", accepted: ["initial_ms", "max_ms"]) {
            accessory.reconnect.initialMs =
                reconnect.integer("initial_ms", Rules.backoffMs) ?? accessory.reconnect.initialMs
            accessory.reconnect.maxMs = reconnect.integer("max_ms", Rules.backoffMs) ?? accessory.reconnect.maxMs
        }
        if let access = reader.mapping("access", accepted: ["users", "groups"]) {
            accessory.access.users = decodePrincipals(access, "users")
            accessory.access.groups = decodePrincipals(access, "groups")
        }
        accessory.trace = decodeTrace(reader)
        accessory.enabled = reader.bool("enabled") ?? true
        accessory.views = decodeViews(reader)
        accessory.network = decodeNetwork(reader)
        guard name != nil, source != nil else { return nil }
        return accessory
    }

    private func decodeSource(_ reader: MappingReader) -> AccessorySource? {
        let present = Self.sourceKeys.filter { reader.has($0) }
        guard present.count == 1, let key = present.first else {
            if present.isEmpty {
                reader.errorHere("needs one of path, match, rfcomm or simulate to say where the accessory is")
            } else {
                reader.error(
                    present[1],
                    "give only one of path, match, rfcomm, simulate (found \(present.joined(separator: " and ")))"
                )
            }
            return nil
        }
        switch key {
        case "path":
            return reader.string("path", what: "an absolute path").map { .path($0) }
        case "match":
            return decodeMatch(reader)
        case "rfcomm":
            guard let rfcomm = reader.mapping("rfcomm", accepted: ["address", "channel"]) else { return nil }
            let address = rfcomm.string("address", what: "a Bluetooth address (XX:XX:XX:XX:XX:XX)")
            let channel = rfcomm.integer("channel", Rules.channel)
            if !rfcomm.has("address") { rfcomm.errorHere("missing required key \"address\"") }
            if !rfcomm.has("channel") { rfcomm.errorHere("missing required key \"channel\"") }
            guard let address, let channel else { return nil }
            return .rfcomm(RFCOMMTarget(address: address.uppercased(), channel: channel))
        default:
            return decodeSimulation(reader)
        }
    }

    private func decodeMatch(_ reader: MappingReader) -> AccessorySource? {
        guard let match = reader.mapping("match", accepted: ["vendor_id", "product_id", "serial", "by_id"]) else {
            return nil
        }
        var result = UdevMatch()
        result.vendorID = match.string("vendor_id", what: "four hex digits such as \"0403\"")?.lowercased()
        result.productID = match.string("product_id", what: "four hex digits such as \"6001\"")?.lowercased()
        result.serial = match.string("serial")
        if var byID = match.string("by_id", what: "a /dev/serial/by-id name") {
            let prefix = "/dev/serial/by-id/"
            if byID.hasPrefix(prefix) { byID.removeFirst(prefix.count) }
            result.byID = byID
        }
        if result == UdevMatch() {
            match.errorHere("needs at least one of vendor_id, product_id, serial, by_id")
            return nil
        }
        return .match(result)
    }

    private func decodeSimulation(_ reader: MappingReader) -> AccessorySource? {
        guard let node = reader.node("simulate"),
            let simulate = MappingReader(anyKeys: node, path: reader.childPath("simulate"), context: context)
        else { return nil }
        guard simulate.has("personality") else {
            simulate.errorHere("missing required key \"personality\"")
            return nil
        }
        guard let personality = simulate.choice("personality", Simulation.Personality.self) else { return nil }
        var options: [Simulation.Option] = []
        for entry in simulate.entries where entry.key != "personality" {
            let path = simulate.childPath(entry.key)
            guard Rules.isValidName(entry.key), !entry.key.hasPrefix("-") else {
                context.error(
                    path,
                    line: entry.keyLine,
                    "simulator option names are [a-z0-9_.-]+, not starting with \"-\""
                )
                continue
            }
            guard case .scalar(let scalar) = entry.value else {
                context.error(path, line: entry.value.line, "expected a scalar option value, got \(entry.value.shown)")
                continue
            }
            // Each option reaches accessory-sim as `--<name> <value>`: a value starting with "-"
            // would be read as another option of the simulator's, not as this one's value.
            guard !scalar.string.hasPrefix("-") else {
                context.error(
                    path,
                    line: entry.value.line,
                    "a simulator option value may not start with \"-\" (it would be read as an option), got \"\(scalar.string)\""
                )
                continue
            }
            options.append(Simulation.Option(key: entry.key, value: scalar.string))
        }
        return .simulate(Simulation(personality: personality, options: options))
    }

    private func decodeResync(_ reader: MappingReader) -> ResyncSettings {
        var resync = ResyncSettings()
        resync.settleMs = reader.integer("settle_ms", Rules.settleMs) ?? resync.settleMs
        resync.lateMs = reader.integer("late_ms", Rules.lateMs) ?? resync.lateMs
        resync.afterReopen = reader.choice("after_reopen", ResyncSettings.AfterReopen.self) ?? resync.afterReopen
        if let probe = reader.mapping("probe", accepted: ["send", "expect", "timeout_ms"]) {
            let send = probe.string("send", what: "the text to send")
            let expect = probe.string("expect", what: "a regular expression")
            if !probe.has("send") { probe.errorHere("missing required key \"send\"") }
            if !probe.has("expect") { probe.errorHere("missing required key \"expect\"") }
            if let send, let expect {
                var settings = ResyncSettings.Probe(send: send, expect: expect)
                settings.timeoutMs = probe.integer("timeout_ms", Rules.timeoutMs) ?? settings.timeoutMs
                resync.probe = settings
            }
        }
        return resync
    }

    private func decodeSerial(_ reader: MappingReader) -> SerialLineSettings {
        var serial = SerialLineSettings()
        serial.baud = reader.integer("baud", Rules.baud) ?? serial.baud
        serial.dataBits = reader.integer("data_bits", Rules.dataBits) ?? serial.dataBits
        serial.parity = reader.choice("parity", SerialLineSettings.Parity.self) ?? serial.parity
        serial.stopBits = reader.integer("stop_bits", Rules.stopBits) ?? serial.stopBits
        serial.flow = reader.choice("flow", SerialLineSettings.FlowControl.self) ?? serial.flow
        serial.hangupOnClose = reader.bool("hangup_on_close") ?? serial.hangupOnClose
        return serial
    }

    private func decodePrincipals(_ reader: MappingReader, _ key: String) -> [Principal] {
        guard let nodes = reader.sequence(key) else { return [] }
        var principals: [Principal] = []
        for (index, node) in nodes.enumerated() {
            let path = KeyPath.index(reader.childPath(key), index)
            context.record(path, line: node.line)
            if let principal = ConfigDecoder(context: context).decodePrincipal(node, path: path) {
                principals.append(principal)
            }
        }
        return principals
    }
}
