/// The `framed` personality: each SLIP or COBS frame received is decoded and echoed, re-encoded.
/// Frames that do not decode are dropped silently (as a device would), and are not requests.
///
/// Owned by one accessory; loop thread only.
struct FramedResponder: Responder {
    let framing: Framing
    let structuralBytes: Set<UInt8>
    private var slip: SLIPCodec.Decoder
    private var cobs: COBSCodec.Decoder

    init(framing: Framing, maxLength: Int) {
        self.framing = framing
        structuralBytes = framing == .slip ? [SLIPCodec.end] : [0]
        slip = SLIPCodec.Decoder(maxLength: maxLength)
        cobs = COBSCodec.Decoder(maxLength: maxLength)
    }

    mutating func receive(_ bytes: ArraySlice<UInt8>) -> [Output] {
        switch framing {
        case .slip: return slip.feed(bytes).map { .reply(SLIPCodec.encode($0)) }
        case .cobs: return cobs.feed(bytes).map { .reply(COBSCodec.encode($0)) }
        }
    }
}
