/// Checks a configuration's values: ranges, formats, regular expressions (compiled with Swift
/// `Regex`), and what no single value shows (duplicate names, two accessories on one device).
/// Issues carry the file and line from the configuration's ``SourceMap`` when it has them.
///
/// This is what `accessoryd --check-config` prints (after any decoding issues, see
/// ``ConfigurationLoader/check(yaml:file:)``).
///
/// Threading: pure. Any thread.
package func validate(_ configuration: Configuration) -> [ConfigIssue] {
    var validator = Validator(map: configuration.sourceMap)
    validator.check(configuration)
    return validator.issues + validateViews(configuration) + validateNetwork(configuration)
}

/// The checks behind ``validate(_:)``.
///
/// Threading: a value, confined to one call.
private struct Validator {
    let map: SourceMap
    var issues: [ConfigIssue] = []

    mutating func error(_ path: String, _ message: String) {
        issues.append(ConfigIssue(.error, file: map.file, line: map.line(for: path), keyPath: path, message: message))
    }

    mutating func warning(_ path: String, _ message: String) {
        issues.append(ConfigIssue(.warning, file: map.file, line: map.line(for: path), keyPath: path, message: message))
    }

    mutating func check(_ value: Int, _ rule: IntRule, _ path: String) {
        if !rule.accepts(value) { error(path, "expected \(rule.what), got \(value)") }
    }

    mutating func check(_ configuration: Configuration) {
        checkSocket(configuration.socket)
        let limits = configuration.limits
        check(limits.maxClients, Rules.maxClients, "limits.max_clients")
        check(limits.maxLineBytes, Rules.maxLineBytes, "limits.max_line_bytes")
        check(limits.clientOutboundBytes, Rules.clientOutboundBytes, "limits.client_outbound_bytes")
        check(limits.queueDepth, Rules.queueDepth, "limits.queue_depth")
        check(limits.defaultTimeoutMs, Rules.timeoutMs, "limits.default_timeout_ms")
        checkClientLimits(limits)
        for (index, folder) in configuration.hotplug.watch.enumerated() {
            checkPath(folder, KeyPath.index("hotplug.watch", index))
        }
        if configuration.accessories.isEmpty {
            warning("accessories", "no accessories are configured")
        }
        for (index, accessory) in configuration.accessories.enumerated() {
            AccessoryValidator(path: KeyPath.index("accessories", index), accessory: accessory, limits: limits)
                .check(into: &self)
        }
        checkUniqueness(configuration.accessories)
    }

    /// The per-client limits: ranges, and a default lease no longer than the longest allowed.
    mutating func checkClientLimits(_ limits: Limits) {
        check(limits.maxRequestsPerClient, Rules.maxRequestsPerClient, "limits.max_requests_per_client")
        check(limits.maxConnectionsPerUID, Rules.maxClients, "limits.max_connections_per_uid")
        check(limits.maxLeaseMs, Rules.timeoutMs, "limits.max_lease_ms")
        check(limits.defaultLeaseMs, Rules.timeoutMs, "limits.default_lease_ms")
        check(limits.attachIdleMs, Rules.timeoutMs, "limits.attach_idle_ms")
        check(limits.reservedConnections, Rules.reservedConnections, "limits.reserved_connections")
        check(limits.idleConnectionTimeoutMs, Rules.timeoutMs, "limits.idle_connection_timeout_ms")
        check(limits.listenerMaxConnections, Rules.listenerConnections, "limits.listener_max_connections")
        check(limits.listenerOutboundBytes, Rules.clientOutboundBytes, "limits.listener_outbound_bytes")
        check(
            limits.telnetMaxSubnegotiationBytes,
            Rules.subnegotiationBytes,
            "limits.telnet_max_subnegotiation_bytes"
        )
        if limits.defaultLeaseMs > limits.maxLeaseMs {
            error(
                "limits.default_lease_ms",
                "the default lease (\(limits.defaultLeaseMs) ms) is longer than limits.max_lease_ms (\(limits.maxLeaseMs) ms)"
            )
        }
        if limits.maxConnectionsPerUID > limits.maxClients {
            warning(
                "limits.max_connections_per_uid",
                "\(limits.maxConnectionsPerUID) is more than limits.max_clients (\(limits.maxClients)): one user can take every client slot"
            )
        }
    }

    mutating func checkSocket(_ socket: SocketSettings) {
        checkPath(socket.path, "socket.path")
        if socket.path.utf8.count > Rules.maxSocketPathBytes {
            error(
                "socket.path",
                "a Unix socket path may be at most \(Rules.maxSocketPathBytes) bytes (this one has \(socket.path.utf8.count))"
            )
        }
        if socket.path.hasSuffix("/") { error("socket.path", "expected a file path, got a directory") }
        if socket.mode > 0o777 {
            error("socket.mode", "expected permission bits (at most 0777), got \(String(socket.mode, radix: 8))")
        }
        if let group = socket.group { checkPrincipal(group, "socket.group") }
    }

    mutating func checkPath(_ path: String, _ keyPath: String) {
        if !path.hasPrefix("/") {
            error(keyPath, "expected an absolute path, got \"\(path)\"")
        } else if path.utf8.contains(0) {
            error(keyPath, "a path cannot contain a NUL character")
        }
    }

    mutating func checkPrincipal(_ principal: Principal, _ path: String) {
        if case .name(let name) = principal, !Rules.isValidPrincipalName(name) {
            error(path, "expected a user or group name or a numeric id, got \"\(name)\"")
        }
    }

    mutating func checkRegex(_ pattern: String, _ path: String) {
        if let problem = Rules.regexProblem(pattern) {
            error(path, "invalid regular expression: \(problem)")
        }
    }

    /// Names are unique; no two accessories use the same device or the same trace file.
    mutating func checkUniqueness(_ accessories: [AccessorySettings]) {
        var names: [String: Int] = [:]
        var devices: [String: Int] = [:]
        var traceFiles: [String: Int] = [:]
        for (index, accessory) in accessories.enumerated() {
            let path = KeyPath.index("accessories", index)
            if let file = accessory.trace?.file {
                if let first = traceFiles[file] {
                    error(
                        path + ".trace.file",
                        "accessories \"\(accessories[first].name)\" and \"\(accessory.name)\" both trace to \(file)"
                    )
                } else {
                    traceFiles[file] = index
                }
            }
            if let first = names[accessory.name] {
                let firstPath = KeyPath.index("accessories", first)
                let lines = [map.line(for: firstPath + ".name"), map.line(for: path + ".name")]
                let where_ =
                    lines.allSatisfy { $0 != nil }
                    ? " (lines \(lines[0]!) and \(lines[1]!))" : " (\(firstPath) and \(path))"
                error(path + ".name", "duplicate accessory name \"\(accessory.name)\"\(where_)")
            } else {
                names[accessory.name] = index
            }
            let device: (key: String, path: String)?
            switch accessory.source {
            case .path(let devicePath): device = ("path " + devicePath, path + ".path")
            case .rfcomm(let target): device = ("rfcomm \(target.address) channel \(target.channel)", path + ".rfcomm")
            case .match(let match) where match.byID != nil: device = ("by_id " + match.byID!, path + ".match.by_id")
            default: device = nil
            }
            if let device {
                if let first = devices[device.key] {
                    error(
                        device.path,
                        "accessories \"\(accessories[first].name)\" and \"\(accessory.name)\" both use \(device.key)"
                    )
                } else {
                    devices[device.key] = index
                }
            }
        }
    }
}

/// The checks of one accessory.
///
/// Threading: a value, confined to one call.
private struct AccessoryValidator {
    let path: String
    let accessory: AccessorySettings
    let limits: Limits

    func child(_ key: String) -> String { KeyPath.child(path, key) }

    func check(into v: inout Validator) {
        if !Rules.isValidName(accessory.name) {
            v.error(child("name"), "expected a name of 1 to 64 characters from [a-z0-9_.-], got \"\(accessory.name)\"")
        } else if accessory.name == "." || accessory.name == ".." {
            // The name is a file name too (a simulator's link is <runtime>/sim/<name>).
            v.error(child("name"), "expected a name that is a plain file name, got \"\(accessory.name)\"")
        }
        checkSource(into: &v)
        let serial = accessory.serial
        v.check(serial.baud, Rules.baud, child("serial.baud"))
        v.check(serial.dataBits, Rules.dataBits, child("serial.data_bits"))
        v.check(serial.stopBits, Rules.stopBits, child("serial.stop_bits"))
        checkFraming(into: &v)
        if let until = accessory.response.until { v.checkRegex(until, child("response.until")) }
        if let timeout = accessory.response.timeoutMs {
            v.check(timeout, Rules.timeoutMs, child("response.timeout_ms"))
        }
        for (index, pattern) in accessory.unsolicited.enumerated() {
            v.checkRegex(pattern, KeyPath.index(child("unsolicited"), index))
        }
        let resync = accessory.resync
        v.check(resync.settleMs, Rules.settleMs, child("resync.settle_ms"))
        v.check(resync.lateMs, Rules.lateMs, child("resync.late_ms"))
        if let probe = resync.probe {
            if probe.send.isEmpty { v.error(child("resync.probe.send"), "expected the text to send, got \"\"") }
            v.checkRegex(probe.expect, child("resync.probe.expect"))
            v.check(probe.timeoutMs, Rules.timeoutMs, child("resync.probe.timeout_ms"))
        }
        let reconnect = accessory.reconnect
        v.check(reconnect.initialMs, Rules.backoffMs, child("reconnect.initial_ms"))
        v.check(reconnect.maxMs, Rules.backoffMs, child("reconnect.max_ms"))
        if reconnect.initialMs > reconnect.maxMs {
            v.error(
                child("reconnect.max_ms"),
                "must be at least initial_ms (\(reconnect.initialMs)), got \(reconnect.maxMs)"
            )
        }
        for (index, user) in accessory.access.users.enumerated() {
            v.checkPrincipal(user, KeyPath.index(child("access.users"), index))
        }
        for (index, group) in accessory.access.groups.enumerated() {
            v.checkPrincipal(group, KeyPath.index(child("access.groups"), index))
        }
        if let trace = accessory.trace { checkTrace(trace, into: &v) }
    }

    func checkTrace(_ trace: TraceSettings, into v: inout Validator) {
        v.checkPath(trace.file, child("trace.file"))
        if trace.file.hasSuffix("/") {
            v.error(child("trace.file"), "expected a file path, got a folder (\"\(trace.file)\")")
        }
        v.check(trace.maxBytes, Rules.traceMaxBytes, child("trace.max_bytes"))
        v.check(trace.keep, Rules.traceKeep, child("trace.keep"))
    }

    func checkSource(into v: inout Validator) {
        switch accessory.source {
        case .path(let devicePath):
            v.checkPath(devicePath, child("path"))
        case .match(let match):
            if let vendor = match.vendorID, !Rules.isUSBID(vendor) {
                v.error(child("match.vendor_id"), "expected four hex digits such as \"0403\", got \"\(vendor)\"")
            }
            if let product = match.productID, !Rules.isUSBID(product) {
                v.error(child("match.product_id"), "expected four hex digits such as \"6001\", got \"\(product)\"")
            }
            if match.serial == "" { v.error(child("match.serial"), "expected a serial number, got an empty string") }
            if let byID = match.byID, byID.isEmpty || byID.contains("/") {
                v.error(child("match.by_id"), "expected a name in /dev/serial/by-id, got \"\(byID)\"")
            }
        case .rfcomm(let target):
            if !Rules.isBluetoothAddress(target.address) {
                v.error(
                    child("rfcomm.address"),
                    "expected a Bluetooth address like 00:11:22:33:44:55, got \"\(target.address)\""
                )
            }
            v.check(target.channel, Rules.channel, child("rfcomm.channel"))
        case .simulate:
            break
        }
    }

    func checkFraming(into v: inout Validator) {
        let settings = accessory.framing
        v.check(settings.maxFrameBytes, Rules.maxFrameBytes, child("framing.max_frame_bytes"))
        switch settings.format {
        case .line(let delimiter, let terminator):
            if delimiter.isEmpty || delimiter.count > Rules.maxDelimiterBytes {
                v.error(
                    child("framing.delimiter"),
                    "expected 1 to \(Rules.maxDelimiterBytes) bytes, got \(delimiter.count)"
                )
            }
            if terminator.count > Rules.maxDelimiterBytes {
                v.error(
                    child("framing.terminator"),
                    "expected at most \(Rules.maxDelimiterBytes) bytes, got \(terminator.count)"
                )
            }
            for (key, bytes) in [("delimiter", delimiter), ("terminator", terminator)] where bytes.contains(0x5C) {
                v.warning(
                    child("framing." + key),
                    "contains a backslash: YAML turns \\r and \\n into control characters only in double quotes"
                )
            }
        case .lengthPrefixed(let width, _):
            v.check(width, Rules.width, child("framing.width"))
        case .idleGap(let gap):
            v.check(gap, Rules.gapMs, child("framing.gap_ms"))
        case .slip, .cobs:
            if accessory.response.until != nil {
                v.warning(
                    child("response.until"),
                    "is matched against frames as UTF-8 text; \(settings.format.typeName) frames are usually binary"
                )
            }
        }
        // A frame is sent as base64 and, when it is text, also as escaped text: about 2.4 times its size.
        // (Only for a size the rule above accepts: a larger one is already an error, and could overflow.)
        if Rules.maxFrameBytes.accepts(settings.maxFrameBytes),
            settings.maxFrameBytes * 12 / 5 > limits.clientOutboundBytes
        {
            v.warning(
                child("framing.max_frame_bytes"),
                "a frame this large does not fit limits.client_outbound_bytes (\(limits.clientOutboundBytes)) "
                    + "once encoded as JSON; clients receiving it would be disconnected"
            )
        }
    }
}
