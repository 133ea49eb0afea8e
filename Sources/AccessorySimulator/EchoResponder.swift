/// The `echo` personality: each line is written back with the terminator it arrived with; with
/// `LineTerminator.none`, every chunk read is written back as is (a raw byte echo, one reply per
/// read).
///
/// Owned by one accessory; loop thread only.
struct EchoResponder: Responder {
    private var splitter: LineSplitter?
    let structuralBytes: Set<UInt8>

    init(terminator: LineTerminator, maxLength: Int) {
        splitter = terminator == .none ? nil : LineSplitter(terminator: terminator, maxLength: maxLength)
        structuralBytes = Set(terminator == .any ? [0x0D, 0x0A] : terminator.bytes)
    }

    mutating func receive(_ bytes: ArraySlice<UInt8>) -> [Output] {
        guard splitter != nil else { return [.reply(Array(bytes))] }
        return splitter!.feed(bytes).map { .reply($0.bytes) }
    }
}
