import AccessoryConfig
import Testing

@Suite("Configuration: pty views, with file, line and key path")
struct ViewConfigTests {
    @Test("every key, and the defaults")
    func keysAndDefaults() throws {
        let yaml = accessory(
            """
                views:
                  - {pty: gps, mode: monitor}
                  - pty: /srv/tty/modem
                    mode: shared
                    owner: gpsd
                    group: 20
                    perm: "0640"
                    buffer_bytes: 4096
                  - {pty: term, mode: exclusive}

            """
        )
        let views = try #require(decodeConfig(yaml)).accessories[0].views
        #expect(views.count == 3)
        #expect(views[0] == ViewSettings(pty: "gps", mode: .monitor))
        #expect(views[0].effectivePerm == 0o600)
        #expect(views[0].bufferBytes == 64 << 10)
        #expect(
            views[1]
                == ViewSettings(
                    pty: "/srv/tty/modem",
                    mode: .shared,
                    owner: .name("gpsd"),
                    group: .id(20),
                    perm: 0o640,
                    bufferBytes: 4096
                )
        )
        #expect(views[2].mode == .exclusive)
        #expect(views[0].linkPath(runtimeDirectory: "/run/accessoryd") == "/run/accessoryd/tty/gps")
        #expect(views[1].linkPath(runtimeDirectory: "/run/accessoryd") == "/srv/tty/modem")
        #expect(ViewSettings(pty: "x", mode: .monitor, group: .name("dialout")).effectivePerm == 0o660)
    }

    @Test(
        "wrong values",
        arguments: [
            (
                accessory("    views:\n      - {mode: monitor}\n"),
                #"test.yaml:5: accessories[0].views[0]: missing required key "pty" (the view's path: a name under the runtime directory's tty/ folder, or an absolute path)"#
            ),
            (
                accessory("    views:\n      - {pty: gps}\n"),
                #"test.yaml:5: accessories[0].views[0]: missing required key "mode" (monitor, shared or exclusive)"#
            ),
            (
                accessory("    views:\n      - {pty: gps, mode: monitr}\n"),
                #"test.yaml:5: accessories[0].views[0].mode: expected one of monitor, shared, exclusive, got "monitr" (did you mean "monitor"?)"#
            ),
            (
                accessory("    views:\n      - {pty: gps, mode: monitor, perms: 0660}\n"),
                #"test.yaml:5: accessories[0].views[0].perms: unknown key (did you mean "perm"?); expected one of: pty, mode, owner, group, perm, buffer_bytes, idle_ms"#
            ),
            (
                accessory("    views:\n      - {pty: gps, mode: monitor, perm: rw}\n"),
                #"test.yaml:5: accessories[0].views[0].perm: expected an octal mode such as "0660", got "rw""#
            ),
            (
                accessory("    views:\n      - {pty: gps, mode: monitor, perm: \"4755\"}\n"),
                "test.yaml:5: accessories[0].views[0].perm: expected permission bits (at most 0777), got 4755"
            ),
            (
                accessory("    views:\n      - {pty: tty/gps, mode: monitor}\n"),
                #"test.yaml:5: accessories[0].views[0].pty: a relative view path is a file name in the runtime directory's tty/ folder (no "/"), got "tty/gps"; give an absolute path to put it elsewhere"#
            ),
            (
                accessory("    views:\n      - {pty: /dev/../tmp/x, mode: monitor}\n"),
                #"test.yaml:5: accessories[0].views[0].pty: expected a plain absolute path (no empty, "." or ".." parts), got "/dev/../tmp/x""#
            ),
            (
                accessory("    views:\n      - {pty: /tmp/, mode: monitor}\n"),
                #"test.yaml:5: accessories[0].views[0].pty: expected a file path, got a folder ("/tmp/")"#
            ),
            (
                accessory("    views:\n      - {pty: gps, mode: monitor, owner: \"bad name\"}\n"),
                #"test.yaml:5: accessories[0].views[0].owner: expected a user or group name or a numeric id, got "bad name""#
            ),
            (
                accessory("    views:\n      - {pty: gps, mode: monitor, idle_ms: 1000}\n"),
                "test.yaml:5: accessories[0].views[0].idle_ms: applies only to an exclusive view (its raw session)"
            ),
            (
                accessory("    views:\n      - {pty: gps, mode: exclusive, idle_ms: 0}\n"),
                "test.yaml:5: accessories[0].views[0].idle_ms: expected a positive integer (milliseconds, at most 86400000), got 0"
            ),
            (
                accessory("    views:\n      - {pty: gps, mode: monitor, buffer_bytes: 10}\n"),
                "test.yaml:5: accessories[0].views[0].buffer_bytes: expected a byte count from 1024 to 16777216, got 10"
            ),
            (
                accessory("    views: {pty: gps, mode: monitor}\n"),
                #"test.yaml:4: accessories[0].views: expected a list, got a mapping"#
            ),
        ]
    )
    func wrongValues(yaml: String, expected: String) {
        #expect(errors(yaml) == [expected])
    }

    @Test("two views cannot share a path, within an accessory or across two")
    func sharedPath() {
        let yaml = """
            accessories:
              - name: a
                path: /dev/ttyUSB0
                views: [{pty: gps, mode: monitor}]
              - name: b
                path: /dev/ttyUSB1
                views: [{pty: gps, mode: shared}]
            """
        #expect(
            errors(yaml) == [
                #"test.yaml:7: accessories[1].views[0].pty: gps is already the path of a view of accessory "a" (line 4)"#
            ]
        )
    }
}
