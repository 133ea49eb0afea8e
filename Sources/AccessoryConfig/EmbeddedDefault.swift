/// The configuration used when there is no configuration file: simulated accessories for the
/// demo. The daemon starts `accessory-sim` for each `simulate` accessory.
///
/// - `echo`: echoes each line (`\n` framing).
/// - `modem`: an AT modem (`\r\n` framing); a transaction collects lines up to a final result
///   code; `RING` and `+CMTI:` (every 3 s) are unsolicited.
/// - `gps`: an NMEA receiver (`\r\n` framing), sentences go to subscribers.
/// - `slip`: echoes SLIP frames.
///
/// Threading: constants and pure functions. Any thread.
package enum EmbeddedDefault {
    /// The name issues use for the embedded text.
    package static let fileName = "<embedded default>"

    /// The YAML text. It has no `socket.path`: ``configuration(runtimeDirectory:)`` puts the
    /// socket in the runtime directory it is given.
    package static let yaml = #"""
        # accessoryd's embedded default configuration: simulated accessories for the demo.
        limits:
          default_timeout_ms: 2000
        log:
          level: info
        accessories:
          - name: echo
            simulate: {personality: echo}
            framing: {type: line, delimiter: "\n"}
          - name: modem
            simulate: {personality: at-modem, unsolicited_ms: 3000, delay_ms: 20}   # RING / +CMTI every 3 s; answers after 20 ms
            framing: {type: line, delimiter: "\r\n", terminator: "\r\n"}
            response:
              # Final result codes end a transaction; everything before them is its reply.
              until: '^(OK|ERROR|NO CARRIER|BUSY|NO ANSWER|NO DIALTONE|CONNECT.*|\+CM[ES] ERROR.*)$'
              timeout_ms: 2000
            unsolicited: ['^RING$', '^\+CMTI: .*']
          - name: gps
            simulate: {personality: nmea}
            framing: {type: line, delimiter: "\r\n"}
          - name: slip
            simulate: {personality: framed, framing: slip}
            framing: {type: slip, max_frame_bytes: 4096}
        """#

    /// The embedded configuration with its socket at `<runtimeDirectory>/accessoryd.sock`.
    /// Throws only if the resulting path is unusable (e.g. longer than a socket path may be).
    package static func configuration(runtimeDirectory: String) throws(ConfigError) -> Configuration {
        var configuration = try ConfigurationLoader.load(yaml: yaml, file: fileName)
        var directory = runtimeDirectory
        while directory.count > 1 && directory.hasSuffix("/") { directory.removeLast() }
        configuration.socket.path = directory == "/" ? "/accessoryd.sock" : directory + "/accessoryd.sock"
        let errors = validate(configuration).filter { $0.severity == .error }
        guard errors.isEmpty else { throw ConfigError(issues: errors) }
        return configuration
    }
}
