import AccessoryConfig
import Testing

@Suite("Configuration: wrong types, impossible values and sources, each with file, line and key path")
struct ConfigValueErrorTests {
    @Test(
        "wrong types",
        arguments: [
            ("socket: /run/x.sock\n", #"test.yaml:1: socket: expected a mapping, got "/run/x.sock""#),
            ("accessories:\n  name: a\n", "test.yaml:2: accessories: expected a list, got a mapping"),
            ("accessories:\n  - just-a-name\n", #"test.yaml:2: accessories[0]: expected a mapping, got "just-a-name""#),
            (
                "threads:\n  control: device\n",
                #"test.yaml:2: threads.control: expected one of own, shared, got "device""#
            ),
            (
                "limits:\n  max_clients: many\n",
                #"test.yaml:2: limits.max_clients: expected an integer from 1 to 65536, got "many""#
            ),
            (
                "limits:\n  queue_depth: 99999999999999999999999\n",
                "test.yaml:2: limits.queue_depth: expected an integer from 1 to 65536, got 99999999999999999999999 (out of range)"
            ),
            (
                accessory("    enabled: \"yes\"\n"),
                #"test.yaml:4: accessories[0].enabled: expected true or false, got "yes""#
            ),
            (
                accessory("    serial: {data_bits: [8]}\n"),
                "test.yaml:4: accessories[0].serial.data_bits: expected 5, 6, 7 or 8, got a list"
            ),
            (
                accessory("    serial: {parity: evn}\n"),
                #"test.yaml:4: accessories[0].serial.parity: expected one of none, even, odd, mark, space, got "evn" (did you mean "even"?)"#
            ),
            (
                accessory("    unsolicited: '^RING$'\n"),
                #"test.yaml:4: accessories[0].unsolicited: expected a list, got "^RING$""#
            ),
            (
                accessory("    unsolicited: ['^a', {x: 1}]\n"),
                "test.yaml:4: accessories[0].unsolicited[1]: expected a regular expression, got a mapping"
            ),
            (
                "log: {level: verbose}\n",
                #"test.yaml:1: log.level: expected one of trace, debug, info, notice, warning, error, critical, got "verbose""#
            ),
            (
                accessory("    access: {users: [alice, [bob]]}\n"),
                "test.yaml:4: accessories[0].access.users[1]: expected a name or a numeric id, got a list"
            ),
        ]
    )
    func wrongTypes(yaml: String, expected: String) {
        #expect(errors(yaml) == [expected])
    }

    @Test(
        "impossible values",
        arguments: [
            (
                accessory("    serial:\n      baud: 0\n"),
                "test.yaml:5: accessories[0].serial.baud: expected a positive integer, got 0"
            ),
            (
                accessory("    serial:\n      data_bits: 9\n"),
                "test.yaml:5: accessories[0].serial.data_bits: expected 5, 6, 7 or 8, got 9"
            ),
            (
                accessory("    serial: {stop_bits: 3}\n"),
                "test.yaml:4: accessories[0].serial.stop_bits: expected 1 or 2, got 3"
            ),
            (
                accessory("", source: "rfcomm: {address: \"00:11:22:33:44:55\", channel: 31}"),
                "test.yaml:3: accessories[0].rfcomm.channel: expected an RFCOMM channel from 1 to 30, got 31"
            ),
            (
                accessory("", source: "rfcomm:\n      address: 00:11:22:33:44\n      channel: 1"),
                #"test.yaml:4: accessories[0].rfcomm.address: expected a Bluetooth address like 00:11:22:33:44:55, got "00:11:22:33:44""#
            ),
            (
                "socket:\n  mode: \"999\"\n",
                #"test.yaml:2: socket.mode: expected an octal mode such as "0660", got "999""#
            ),
            (
                "socket:\n  mode: \"1777\"\n",
                "test.yaml:2: socket.mode: expected permission bits (at most 0777), got 1777"
            ),
            (
                "socket:\n  path: run/x.sock\n",
                #"test.yaml:2: socket.path: expected an absolute path, got "run/x.sock""#
            ),
            (
                "socket:\n  path: /" + String(repeating: "x", count: 110) + "\n",
                "test.yaml:2: socket.path: a Unix socket path may be at most 107 bytes (this one has 111)"
            ),
            (
                "limits:\n  default_timeout_ms: -5\n",
                "test.yaml:2: limits.default_timeout_ms: expected a positive integer (milliseconds, at most 86400000), got -5"
            ),
            (
                "limits:\n  max_requests_per_client: 0\n",
                "test.yaml:2: limits.max_requests_per_client: expected an integer from 1 to 1048576, got 0"
            ),
            (
                "limits:\n  max_connections_per_uid: 70000\n",
                "test.yaml:2: limits.max_connections_per_uid: expected an integer from 1 to 65536, got 70000"
            ),
            (
                "limits:\n  attach_idle_ms: 0\n",
                "test.yaml:2: limits.attach_idle_ms: expected a positive integer (milliseconds, at most 86400000), got 0"
            ),
            (
                "limits:\n  reserved_connections: 2000\n",
                "test.yaml:2: limits.reserved_connections: expected an integer from 0 to 1024, got 2000"
            ),
            (
                "limits:\n  idle_connection_timeout_ms: 0\n",
                "test.yaml:2: limits.idle_connection_timeout_ms: expected a positive integer (milliseconds, at most 86400000), got 0"
            ),
            (
                "limits:\n  listener_max_connections: 0\n",
                "test.yaml:2: limits.listener_max_connections: expected an integer from 1 to 1024, got 0"
            ),
            (
                "limits:\n  listener_outbound_bytes: 100\n",
                "test.yaml:2: limits.listener_outbound_bytes: expected a byte count from 4096 to 1073741824, got 100"
            ),
            (
                "limits:\n  telnet_max_subnegotiation_bytes: 8\n",
                "test.yaml:2: limits.telnet_max_subnegotiation_bytes: expected a byte count from 16 to 65536, got 8"
            ),
            (
                "limits:\n  max_lease_ms: 1000\n  default_lease_ms: 5000\n",
                "test.yaml:3: limits.default_lease_ms: the default lease (5000 ms) is longer than limits.max_lease_ms (1000 ms)"
            ),
            (
                accessory("    response:\n      timeout_ms: -1\n"),
                "test.yaml:5: accessories[0].response.timeout_ms: expected a positive integer (milliseconds, at most 86400000), got -1"
            ),
            (
                accessory("    resync: {settle_ms: -1}\n"),
                "test.yaml:4: accessories[0].resync.settle_ms: expected a non-negative integer (milliseconds, at most 60000), got -1"
            ),
            (
                accessory("    resync: {late_ms: -1}\n"),
                "test.yaml:4: accessories[0].resync.late_ms: expected a non-negative integer (milliseconds, at most 86400000), got -1"
            ),
            (
                accessory("    resync:\n      probe: {send: AT, expect: \"^(OK$\"}\n"),
                "test.yaml:5: accessories[0].resync.probe.expect: invalid regular expression: expected ')'"
            ),
            (
                accessory("    resync:\n      probe: {send: AT}\n"),
                "test.yaml:5: accessories[0].resync.probe: missing required key \"expect\""
            ),
            (
                accessory("    resync: {after_reopen: later}\n"),
                #"test.yaml:4: accessories[0].resync.after_reopen: expected one of settle, late_answer, got "later""#
            ),
            (
                accessory("    reconnect: {initial_ms: 5000, max_ms: 100}\n"),
                "test.yaml:4: accessories[0].reconnect.max_ms: must be at least initial_ms (5000), got 100"
            ),
            (
                accessory("    framing:\n      type: idle_gap\n"),
                "test.yaml:5: accessories[0].framing: framing type idle_gap needs gap_ms (milliseconds)"
            ),
            (
                accessory("    framing: {type: idle_gap, gap_ms: 0}\n"),
                "test.yaml:4: accessories[0].framing.gap_ms: expected a positive integer (milliseconds, at most 60000), got 0"
            ),
            (
                accessory("    framing: {type: length_prefixed, width: 3}\n"),
                "test.yaml:4: accessories[0].framing.width: expected 1, 2 or 4, got 3"
            ),
            (
                accessory("    framing: {type: length_prefixed}\n"),
                "test.yaml:4: accessories[0].framing: framing type length_prefixed needs width (1, 2 or 4)"
            ),
            (
                accessory("    framing: {type: line, delimiter: \"\"}\n"),
                "test.yaml:4: accessories[0].framing.delimiter: expected 1 to 16 bytes, got 0"
            ),
            (
                accessory("    framing: {type: slip, max_frame_bytes: 0}\n"),
                "test.yaml:4: accessories[0].framing.max_frame_bytes: expected a byte count from 1 to 16777216, got 0"
            ),
            // Past Int.max / 12: an error, not an overflow in the encoded-size warning (the config fuzzer's find).
            (
                accessory("    framing: {type: cobs, max_frame_bytes: 3586866903221301707}\n"),
                "test.yaml:4: accessories[0].framing.max_frame_bytes: expected a byte count from 1 to 16777216, "
                    + "got 3586866903221301707"
            ),
            (
                accessory("    framing: {delimiter: \"\\n\"}\n"),
                "test.yaml:4: accessories[0].framing: missing required key \"type\" (one of line, slip, cobs, length_prefixed, idle_gap)"
            ),
            (
                accessory("    framing: {type: slip, delimiter: \"\\n\"}\n"),
                "test.yaml:4: accessories[0].framing.delimiter: does not apply to framing type slip"
            ),
            (
                accessory("    response: {until: \"(OK\"}\n"),
                "test.yaml:4: accessories[0].response.until: invalid regular expression: expected ')'"
            ),
            (
                accessory("    unsolicited:\n      - '^RING$'\n      - '[z-a]'\n"),
                "test.yaml:6: accessories[0].unsolicited[1]: invalid regular expression: character 'z' must compare less than or equal to 'a'"
            ),
            (
                accessory("    access:\n      groups: [4294967295]\n"),
                "test.yaml:5: accessories[0].access.groups[0]: expected a numeric id from 0 to 4294967294, got 4294967295"
            ),
            (
                accessory("    access:\n      users: [\"bad name\"]\n"),
                #"test.yaml:5: accessories[0].access.users[0]: expected a user or group name or a numeric id, got "bad name""#
            ),
        ]
    )
    func impossibleValues(yaml: String, expected: String) {
        #expect(errors(yaml) == [expected])
    }

    @Test(
        "where the accessory is",
        arguments: [
            (
                "accessories:\n  - name: a\n    serial: {baud: 9600}\n",
                "test.yaml:2: accessories[0]: needs one of path, match, rfcomm or simulate to say where the accessory is"
            ),
            (
                "accessories:\n  - name: a\n    path: /dev/x\n    rfcomm: {address: \"00:11:22:33:44:55\", channel: 1}\n",
                "test.yaml:4: accessories[0].rfcomm: give only one of path, match, rfcomm, simulate (found path and rfcomm)"
            ),
            (
                "accessories:\n  - name: a\n    path: dev/x\n",
                #"test.yaml:3: accessories[0].path: expected an absolute path, got "dev/x""#
            ),
            (
                "accessories:\n  - name: a\n    match: {}\n",
                "test.yaml:3: accessories[0].match: needs at least one of vendor_id, product_id, serial, by_id"
            ),
            (
                "accessories:\n  - name: a\n    match: {vendor_id: \"04g3\"}\n",
                #"test.yaml:3: accessories[0].match.vendor_id: expected four hex digits such as "0403", got "04g3""#
            ),
            (
                "accessories:\n  - name: a\n    match: {product_id: 60011}\n",
                #"test.yaml:3: accessories[0].match.product_id: expected four hex digits such as "6001", got "60011""#
            ),
            (
                "accessories:\n  - name: a\n    match: {by_id: \"../../etc/x\"}\n",
                #"test.yaml:3: accessories[0].match.by_id: expected a name in /dev/serial/by-id, got "../../etc/x""#
            ),
            (
                "accessories:\n  - name: a\n    rfcomm: {address: \"00:11:22:33:44:55\", channel: 2}\n    serial: {baud: 9600}\n",
                "test.yaml:4: accessories[0].serial: serial settings do not apply to an rfcomm accessory (a Bluetooth socket has no line settings)"
            ),
            (
                "accessories:\n  - name: a\n    rfcomm: {channel: 2}\n",
                "test.yaml:3: accessories[0].rfcomm: missing required key \"address\""
            ),
            (
                "accessories:\n  - name: a\n    simulate: {delay_ms: 5}\n",
                "test.yaml:3: accessories[0].simulate: missing required key \"personality\""
            ),
            (
                "accessories:\n  - name: a\n    simulate: {personality: ecko}\n",
                #"test.yaml:3: accessories[0].simulate.personality: expected one of echo, at-modem, nmea, framed, script, replay, esp32-rom, got "ecko" (did you mean "echo"?)"#
            ),
            (
                "accessories:\n  - name: a\n    simulate: {personality: replay, pace: fast}\n",
                #"test.yaml:3: accessories[0].simulate: missing required key "file" (the recording to replay)"#
            ),
            (
                "accessories:\n  - name: a\n    simulate: {personality: nmea, sentences: [GGA]}\n",
                "test.yaml:3: accessories[0].simulate.sentences: expected a scalar option value, got a list"
            ),
        ]
    )
    func sources(yaml: String, expected: String) {
        #expect(errors(yaml) == [expected])
    }
}
