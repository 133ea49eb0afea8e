import AccessoryConfig
import Foundation
import Testing

@Suite("Configuration: the example file and the embedded default")
struct ConfigExampleTests {
    @Test("config/accessoryd.yaml decodes and validates without errors or warnings")
    func exampleFile() throws {
        let url = repositoryRoot.appendingPathComponent("config/accessoryd.yaml")
        let bytes = [UInt8](try Data(contentsOf: url))
        let (configuration, issues) = ConfigurationLoader.check(bytes: bytes, file: "accessoryd.yaml")
        #expect(issues.isEmpty, "\(issues.map(\.description).joined(separator: "\n"))")
        let config = try #require(configuration)
        #expect(
            config.socket
                == SocketSettings(path: "/run/accessoryd/accessoryd.sock", mode: 0o660, group: .name("dialout"))
        )
        #expect(config.limits == Limits())
        #expect(config.log.level == .info)
        #expect(config.threads == ThreadSettings(control: .shared))
        #expect(
            config.accessories.map(\.name) == ["modem", "gps", "sensor-board", "scanner", "scale", "meter", "sim-echo"]
        )

        let modem = try #require(config.accessory(named: "modem"))
        #expect(modem.source == .path("/dev/ttyUSB0"))
        #expect(
            modem.serial == SerialLineSettings(baud: 115_200, dataBits: 8, parity: .none, stopBits: 1, flow: .rtscts)
        )
        #expect(
            modem.framing
                == FramingSettings(format: .line(delimiter: [13, 10], terminator: [13, 10]), maxFrameBytes: 4096)
        )
        #expect(modem.response.timeoutMs == 5000)
        #expect(modem.unsolicited == [#"^RING$"#, #"^\+CMTI: .*"#])
        #expect(
            modem.resync
                == ResyncSettings(
                    settleMs: 100,
                    lateMs: 5000,
                    probe: .init(send: "AT", expect: "^OK$", timeoutMs: 500),
                    afterReopen: .settle
                )
        )
        #expect(modem.access == AccessPolicy(users: [.name("alice"), .id(1001)], groups: [.name("dialout")]))
        #expect(modem.access.isRestricted)

        let gps = try #require(config.accessory(named: "gps"))
        #expect(gps.source == .match(UdevMatch(vendorID: "067b", productID: "2303", serial: "A1B2C3")))
        #expect(gps.serial.baud == 4800)
        #expect(gps.framing.format == .line(delimiter: [13, 10], terminator: [13, 10]))
        #expect(!gps.access.isRestricted)

        let board = try #require(config.accessory(named: "sensor-board"))
        #expect(board.source == .match(UdevMatch(byID: "usb-FTDI_FT232R_USB_UART_A1B2C3-if00-port0")))
        #expect(board.framing == FramingSettings(format: .slip, maxFrameBytes: 1024))

        let scanner = try #require(config.accessory(named: "scanner"))
        #expect(scanner.source == .rfcomm(RFCOMMTarget(address: "00:11:22:33:44:55", channel: 1)))
        if case .rfcomm(let target) = scanner.source {
            #expect(target.addressBytes == [0, 0x11, 0x22, 0x33, 0x44, 0x55])
        }
        #expect(scanner.reconnect == ReconnectSettings(initialMs: 1000, maxMs: 60000))

        let scale = try #require(config.accessory(named: "scale"))
        #expect(scale.serial == SerialLineSettings(baud: 9600, dataBits: 7, parity: .even, stopBits: 2, flow: .none))
        #expect(scale.framing.format == .lengthPrefixed(width: 2, endian: .big))

        let meter = try #require(config.accessory(named: "meter"))
        #expect(meter.framing.format == .idleGap(gapMs: 20))
        #expect(meter.enabled == false)

        let sim = try #require(config.accessory(named: "sim-echo"))
        #expect(sim.source == .simulate(Simulation(personality: .echo, options: [.init(key: "delay_ms", value: "5")])))
    }

    @Test("until and unsolicited patterns compile with Swift Regex and match what they should")
    func examplePatterns() throws {
        let url = repositoryRoot.appendingPathComponent("config/accessoryd.yaml")
        let config = try ConfigurationLoader.load(
            yaml: String(contentsOf: url, encoding: .utf8),
            file: "accessoryd.yaml"
        )
        let modem = try #require(config.accessory(named: "modem"))
        let until = try Regex(try #require(modem.response.until))
        for line in ["OK", "ERROR", "+CME ERROR: 10", "NO CARRIER"] { #expect(try until.wholeMatch(in: line) != nil) }
        for line in ["AT+CSQ", "+CSQ: 20,99", "OKAY"] { #expect(try until.wholeMatch(in: line) == nil) }
    }

    @Test("the embedded default validates and puts the socket in the runtime directory")
    func embeddedDefault() throws {
        let (configuration, issues) = ConfigurationLoader.check(
            yaml: EmbeddedDefault.yaml,
            file: EmbeddedDefault.fileName
        )
        #expect(configuration != nil)
        #expect(issues.isEmpty, "\(issues.map(\.description))")

        let config = try EmbeddedDefault.configuration(runtimeDirectory: "/run/user/1000/accessoryd/")
        #expect(config.socket.path == "/run/user/1000/accessoryd/accessoryd.sock")
        #expect(validate(config).isEmpty)
        #expect(config.accessories.map(\.name) == ["echo", "modem", "gps", "slip"])
        #expect(config.accessory(named: "echo")?.source == .simulate(Simulation(personality: .echo)))
        #expect(config.accessory(named: "echo")?.framing.format == .line(delimiter: [10], terminator: [10]))
        let modem = try #require(config.accessory(named: "modem"))
        #expect(
            modem.source
                == .simulate(
                    Simulation(
                        personality: .atModem,
                        options: [.init(key: "unsolicited_ms", value: "3000"), .init(key: "delay_ms", value: "20")]
                    )
                )
        )
        #expect(modem.framing.format == .line(delimiter: [13, 10], terminator: [13, 10]))
        let until = try Regex(try #require(modem.response.until))
        #expect(try until.wholeMatch(in: "OK") != nil)
        #expect(try until.wholeMatch(in: "+CMS ERROR: 500") != nil)
        #expect(try until.wholeMatch(in: "ATI") == nil)
        let unsolicited = try modem.unsolicited.map { try Regex($0) }
        #expect(try unsolicited.contains { try $0.wholeMatch(in: "RING") != nil })
        #expect(try unsolicited.contains { try $0.wholeMatch(in: "+CMTI: \"SM\",3") != nil })
        #expect(config.accessory(named: "gps")?.source == .simulate(Simulation(personality: .nmea)))
        #expect(config.accessory(named: "slip")?.framing.format == .slip)
        #expect(
            config.accessory(named: "slip")?.source
                == .simulate(Simulation(personality: .framed, options: [.init(key: "framing", value: "slip")]))
        )
    }

    @Test("the embedded default refuses a runtime directory too long for a socket path")
    func embeddedDefaultLongPath() {
        let long = "/" + String(repeating: "d", count: 120)
        #expect(throws: ConfigError.self) { try EmbeddedDefault.configuration(runtimeDirectory: long) }
    }

    @Test("equality ignores source positions")
    func equality() throws {
        let a = try #require(decodeConfig("accessories:\n  - {name: x, path: /dev/a}\n"))
        let b = try #require(decodeConfig("# moved\n\naccessories:\n\n  - name: x\n    path: /dev/a\n"))
        #expect(a == b)
        #expect(a.sourceMap.line(for: "accessories[0].name") == 2)
        #expect(b.sourceMap.line(for: "accessories[0].name") == 5)
    }

    @Test("an empty file is the defaults, with a warning that there are no accessories")
    func emptyFile() throws {
        let (configuration, found) = ConfigurationLoader.check(yaml: "# nothing\n", file: "empty.yaml")
        #expect(configuration == Configuration())
        #expect(found.map(\.description) == ["empty.yaml: warning: accessories: no accessories are configured"])
    }
}
