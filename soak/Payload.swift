/// The lines the soak sends to and gets from its echo accessories. Each one says who made it, so
/// that a frame that arrives in the wrong place is recognised (misrouting, or a late reply handed
/// to the next request):
///
/// - `T<client>.<id>.<hex>`: a `transact`; the echo accessory answers with the same line.
/// - `S<client>.<id>.<hex>`: a slow `transact`: the accessory answers after its timeout, so the
///   daemon must discard that late answer (resync) rather than hand it to the next request.
/// - `W<client>.<id>.<hex>`: a `write`; echoed too, but the daemon's `unsolicited: ['^W']` rule
///   sends it to subscribers only, never to a request.
/// - `R<device>.<n>`: a line the accessory sends by itself (a `read` or a subscriber gets it, or
///   a `transact` collects it before its own answer).
///
/// Threading: values. Any thread.
enum Payload {
    enum Kind: UInt8 {
        case transact = 84  // T
        case slow = 83  // S
        case write = 87  // W
        case spontaneous = 82  // R
    }

    /// A request payload: kind letter, connection number, request id and random hex (so that no
    /// two payloads are equal even across runs of the same client number).
    static func make(_ kind: Kind, client: Int, id: Int64, random: UInt64) -> [UInt8] {
        [kind.rawValue] + Array("\(client).\(id).\(String(random, radix: 16))".utf8)
    }

    /// The line the accessory `device` sends by itself, number `n`.
    static func spontaneous(device: Int, n: Int) -> [UInt8] {
        [Kind.spontaneous.rawValue] + Array("\(device).\(n)".utf8)
    }

    static func kind(of frame: [UInt8]) -> Kind? { frame.first.flatMap(Kind.init(rawValue:)) }

    /// The accessory number of a spontaneous line, if `frame` is one.
    static func spontaneousDevice(_ frame: [UInt8]) -> Int? {
        guard kind(of: frame) == .spontaneous, let dot = frame.firstIndex(of: UInt8(ascii: ".")) else { return nil }
        return Int(String(decoding: frame[1..<dot], as: UTF8.self))
    }

    /// Printable form for messages (payloads are ASCII).
    static func text(_ frame: [UInt8]) -> String { String(decoding: frame.prefix(80), as: UTF8.self) }
}
