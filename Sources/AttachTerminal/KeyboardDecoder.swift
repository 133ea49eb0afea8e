/// What a key after the escape key asks for.
///
/// Threading: a value. Any thread.
package enum EscapeCommand: Sendable, Hashable, CaseIterable {
    case quit, help, sendBreak, toggleDTR, toggleRTS, toggleHex, toggleTimestamps, toggleLog, statistics

    /// The key that selects it (after the escape key).
    package var key: Character {
        switch self {
        case .quit: "q"
        case .help: "?"
        case .sendBreak: "b"
        case .toggleDTR: "d"
        case .toggleRTS: "r"
        case .toggleHex: "h"
        case .toggleTimestamps: "t"
        case .toggleLog: "l"
        case .statistics: "s"
        }
    }

    /// One line of help.
    package var summary: String {
        switch self {
        case .quit: "quit (exit 0)"
        case .help: "show this help"
        case .sendBreak: "send a break"
        case .toggleDTR: "toggle DTR"
        case .toggleRTS: "toggle RTS"
        case .toggleHex: "toggle the hexadecimal view"
        case .toggleTimestamps: "toggle timestamps"
        case .toggleLog: "start or stop logging to a file"
        case .statistics: "show the session's statistics"
        }
    }

    init?(key: UInt8) {
        guard let found = Self.allCases.first(where: { $0.key.asciiValue == key }) else { return nil }
        self = found
    }
}

/// What the keyboard's bytes amount to.
///
/// Threading: a value. Any thread.
package enum KeyboardAction: Sendable, Hashable {
    /// Bytes for the device, as typed.
    case send([UInt8])
    case command(EscapeCommand)
    /// The escape key followed by a key that means nothing.
    case unknown(UInt8)
}

/// The escape-key state machine: bytes typed pass through as they are, except the escape key,
/// whose next key is a command; the escape key twice sends it once. The state survives between
/// reads (a terminal delivers one key per read).
///
/// Threading: a value, owned by one thread.
package struct KeyboardDecoder: Sendable {
    package let escape: EscapeKey
    /// The escape key was the last byte seen: the next one is a command.
    package private(set) var awaitingCommand = false

    package init(escape: EscapeKey) { self.escape = escape }

    /// The actions for `bytes`, runs of bytes for the device joined into one `send`.
    package mutating func feed(_ bytes: some Sequence<UInt8>) -> [KeyboardAction] {
        var actions: [KeyboardAction] = []
        var run: [UInt8] = []
        func emit(_ action: KeyboardAction) {
            if !run.isEmpty { actions.append(.send(run)) }
            run = []
            actions.append(action)
        }
        for byte in bytes {
            if awaitingCommand {
                awaitingCommand = false
                if byte == escape.byte {
                    run.append(byte)
                } else if let command = EscapeCommand(key: byte) {
                    emit(.command(command))
                } else {
                    emit(.unknown(byte))
                }
            } else if byte == escape.byte {
                awaitingCommand = true
            } else {
                run.append(byte)
            }
        }
        if !run.isEmpty { actions.append(.send(run)) }
        return actions
    }

    /// The help: every key, one per line.
    package var help: [String] {
        ["\(escape) then:"] + EscapeCommand.allCases.map { "  \($0.key)  \($0.summary)" } + [
            "  \(escape)  send \(escape) itself"
        ]
    }
}
