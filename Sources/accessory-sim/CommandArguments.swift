import ArgumentParser

/// `--personality` values. Any thread (a value).
enum PersonalityArgument: String, CaseIterable, ExpressibleByArgument {
    case echo
    case atModem = "at-modem"
    case nmea
    case framed
    case script
    case replay
    case esp32ROM = "esp32-rom"
}

/// `--boot` values (the `esp32-rom` personality's strapping). Any thread (a value).
enum BootArgument: String, CaseIterable, ExpressibleByArgument {
    case flash
    case download
}

/// `--framing` values. Any thread (a value).
enum FramingArgument: String, CaseIterable, ExpressibleByArgument {
    case slip
    case cobs
    case lengthPrefixed = "length-prefixed"
}

/// `--terminator` values. Any thread (a value).
enum TerminatorArgument: String, CaseIterable, ExpressibleByArgument {
    case lf
    case crlf
    case cr
    case any
    case none
}
