/// The `echo` personality: each line is written back with the terminator it arrived with; with
/// `LineTerminator.none`, every chunk read is written back as is (a raw byte echo, one reply per
/// read), `replyRepeat` times over (a reply longer than its request, e.g. to exceed a frame limit).
///
/// Owned by one accessory; loop thread only.
struct EchoResponder: Responder {
    private var splitter: LineSplitter?
    let structuralBytes: Set<UInt8>
    let replyRepeat: Int

    init(terminator: LineTerminator, maxLength: Int, replyRepeat: Int = 1) {
        self.replyRepeat = replyRepeat
        splitter = terminator == .none ? nil : LineSplitter(terminator: terminator, maxLength: maxLength)
        structuralBytes = Set(terminator == .any ? [0x0D, 0x0A] : terminator.bytes)
    }

    mutating func receive(_ bytes: ArraySlice<UInt8>) -> [Output] {
        guard splitter != nil else {
            return [
                .reply(replyRepeat == 1 ? Array(bytes) : Array(Array(repeating: bytes, count: replyRepeat).joined()))
            ]
        }
        return splitter!.feed(bytes).map { .reply($0.bytes) }
    }
}
