/// The `framed` personality: each SLIP, COBS or length-prefixed frame received is decoded and
/// echoed, re-encoded. Frames that do not decode are dropped silently (as a device would), and
/// are not requests. A length prefix has no byte values of its own to keep, so garbage faults
/// on length-prefixed replies garble the prefix too (the daemon then sees a bad length claim).
///
/// Owned by one accessory; loop thread only.
struct FramedResponder: Responder {
    let framing: Framing
    /// How many times each reply carries the received payload (``SimulatorConfiguration/replyRepeat``).
    let replyRepeat: Int
    let structuralBytes: Set<UInt8>
    private var slip: SLIPCodec.Decoder
    private var cobs: COBSCodec.Decoder
    private var lengthPrefixed: LengthPrefixCodec.Decoder

    init(framing: Framing, maxLength: Int, replyRepeat: Int = 1) {
        self.framing = framing
        self.replyRepeat = replyRepeat
        switch framing {
        case .slip: structuralBytes = [SLIPCodec.end]
        case .cobs: structuralBytes = [0]
        case .lengthPrefixed: structuralBytes = []
        }
        slip = SLIPCodec.Decoder(maxLength: maxLength)
        cobs = COBSCodec.Decoder(maxLength: maxLength)
        lengthPrefixed = LengthPrefixCodec.Decoder(maxLength: min(maxLength, LengthPrefixCodec.maxPayload))
    }

    mutating func receive(_ bytes: ArraySlice<UInt8>) -> [Output] {
        let payloads: [[UInt8]]
        switch framing {
        case .slip: payloads = slip.feed(bytes)
        case .cobs: payloads = cobs.feed(bytes)
        case .lengthPrefixed: payloads = lengthPrefixed.feed(bytes)
        }
        return payloads.compactMap { payload in
            let reply = replyRepeat == 1 ? payload : Array(Array(repeating: payload, count: replyRepeat).joined())
            switch framing {
            case .slip: return .reply(SLIPCodec.encode(reply))
            case .cobs: return .reply(COBSCodec.encode(reply))
            // A reply too long for the two-byte prefix is not sent (it cannot be framed).
            case .lengthPrefixed: return LengthPrefixCodec.encode(reply).map { Output.reply($0) }
            }
        }
    }
}
