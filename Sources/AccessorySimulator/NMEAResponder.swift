import IOLoop

/// The `nmea` personality: a GPS receiver that emits one fix (`$GPGGA` then `$GPRMC`) per
/// interval and answers the MediaTek `$PMTK` commands real receivers (and gpsd's probe) send,
/// so that a program can run requests on the receiver while others read its fixes:
///
/// | line | answer |
/// |---|---|
/// | `$PMTK605*31` (firmware query) | `$PMTK705,AXN_5.1.7_3333_01,0001,AccessorySim,1.0*CS` |
/// | `$PMTKnnn[,args]*CS`, `nnn` three digits, checksum right | `$PMTK001,nnn,3*CS` (done) |
/// | the same with a wrong or missing checksum | `$PMTK001,nnn,0*CS` (invalid) |
///
/// Every other line is ignored.
///
/// The fix is deterministic: the clock starts at 2024-06-01 12:00:00.00 UTC and advances by the
/// interval, and the position starts at 52°31.2000'N 13°24.3000'E and drifts east by 0.0010' per
/// fix.
///
/// Owned by one accessory; loop thread only.
struct NMEAResponder: Responder {
    let tickInterval: Duration?
    let structuralBytes: Set<UInt8> = [0x0D, 0x0A]
    private var fix = GPSFix()
    private var splitter: LineSplitter

    static let firmware = "PMTK705,AXN_5.1.7_3333_01,0001,AccessorySim,1.0"

    init(interval: Duration, maxLength: Int = 65_536) {
        tickInterval = interval
        splitter = LineSplitter(terminator: .any, maxLength: maxLength)
    }

    mutating func receive(_ bytes: ArraySlice<UInt8>) -> [Output] {
        splitter.feed(bytes).compactMap { line in
            Self.answer(to: String(decoding: line.content, as: UTF8.self)).map { .reply(Array($0.utf8)) }
        }
    }

    /// The sentence that answers `line`, nil when the receiver ignores it.
    static func answer(to line: String) -> String? {
        guard line.hasPrefix("$PMTK") else { return nil }
        let afterPrefix = line.dropFirst(5)
        let command = afterPrefix.prefix(3)
        guard command.count == 3, command.allSatisfy(\.isASCIIDigit) else { return nil }
        let rest = afterPrefix.dropFirst(3)
        guard rest.isEmpty || rest.first == "," || rest.first == "*" else { return nil }
        guard NMEASentence.isValid(line) else { return NMEASentence.frame("PMTK001,\(command),0") }
        if command == "605" { return NMEASentence.frame(firmware) }
        return NMEASentence.frame("PMTK001,\(command),3")
    }

    mutating func tick() -> [Output] {
        let sentences = NMEASentence.frame(fix.ggaBody) + NMEASentence.frame(fix.rmcBody)
        fix.advance(by: tickInterval ?? .seconds(1))
        return [.reply(Array(sentences.utf8))]
    }
}

/// A simulated position and UTC time, formatted as NMEA fields. Any thread (a value).
struct GPSFix {
    /// Hundredths of a second since midnight.
    var centiseconds = 12 * 360_000
    var day = 1
    var month = 6
    var year = 2024
    /// Ten-thousandths of an arc minute.
    var latitude = (52 * 60 + 31) * 10_000 + 2_000
    var longitude = (13 * 60 + 24) * 10_000 + 3_000

    var time: String {
        let cs = centiseconds
        return (cs / 360_000).zeroPadded(2) + (cs / 6_000 % 60).zeroPadded(2) + (cs / 100 % 60).zeroPadded(2) + "."
            + (cs % 100).zeroPadded(2)
    }

    var date: String { day.zeroPadded(2) + month.zeroPadded(2) + (year % 100).zeroPadded(2) }

    static func angle(_ v: Int, degreeDigits: Int) -> String {
        let minutes = v % 600_000
        return (v / 600_000).zeroPadded(degreeDigits) + (minutes / 10_000).zeroPadded(2) + "."
            + (minutes % 10_000).zeroPadded(4)
    }

    var position: String {
        Self.angle(latitude, degreeDigits: 2) + ",N," + Self.angle(longitude, degreeDigits: 3) + ",E"
    }

    var ggaBody: String { "GPGGA,\(time),\(position),1,08,0.9,34.0,M,46.9,M,," }

    var rmcBody: String { "GPRMC,\(time),A,\(position),0.5,90.0,\(date),,,A" }

    mutating func advance(by interval: Duration) {
        centiseconds += Int(interval.nanosecondsClamped / 10_000_000)
        longitude += 10
        while centiseconds >= 8_640_000 {
            centiseconds -= 8_640_000
            nextDay()
        }
    }

    private mutating func nextDay() {
        let lengths = [31, year % 4 == 0 ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]
        day += 1
        if day > lengths[month - 1] {
            day = 1
            month += 1
            if month > 12 {
                month = 1
                year += 1
            }
        }
    }
}
