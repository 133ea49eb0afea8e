// libFuzzer target: the telnet / RFC 2217 server stream (TelnetComPort), fed hostile bytes in
// hostile chunks: malformed IAC sequences, endless subnegotiations, option floods.
//
// Input layout: byte 0 is the chunk size (1…256, 0 = the whole input at once); the rest is the
// client's stream. Properties checked on every input: the inputs and answers do not depend on
// how the stream was cut (data runs joined); a stream is refused (an error) whatever the cut; no
// subnegotiation the parser keeps grows past its limit; every answer the server sends parses
// back, with a fresh parser, into whole negotiations and subnegotiations (it never sends half a
// command); answers stay within a fixed size per input byte (no amplification). A broken
// property traps, which libFuzzer reports with the input.
//
// Threading: libFuzzer calls the entry point on one thread.
import TelnetComPort

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: start, count: count))
    guard let first = input.first else { return 0 }
    let stream = Array(input.dropFirst())
    let size = first == 0 ? max(stream.count, 1) : Int(first)
    let whole = run([stream[...]])
    let chunks = stride(from: 0, to: stream.count, by: size).map { stream[$0..<min($0 + size, stream.count)] }
    let cut = run(chunks)
    precondition(whole.failed == cut.failed, "chunking changed whether the stream is refused")
    // (A refused stream's events before the error are not compared: one call gives none of them.)
    guard !whole.failed else { return 0 }
    precondition(whole.inputs == cut.inputs, "chunking changed the inputs")
    precondition(whole.reply == cut.reply, "chunking changed the answers")
    // Every negotiation is answered with at most 3 bytes, and a negotiation takes 3.
    precondition(whole.reply.count <= stream.count + 12, "answers larger than what was sent")
    // The server's own bytes are whole telnet commands.
    var check = TelnetParser()
    guard let events = try? check.feed(whole.reply) else { preconditionFailure("the server sent a broken command") }
    for event in events {
        if case .data = event { preconditionFailure("the server answered a negotiation with data") }
    }
    return 0
}

struct Outcome {
    var inputs: [TelnetServerStream.Input] = []
    var reply: [UInt8] = []
    var failed = false
}

/// Feeds `chunks` to a fresh server stream; adjacent data runs are joined (a cut may split one).
func run(_ chunks: [ArraySlice<UInt8>]) -> Outcome {
    var out = Outcome()
    var server = TelnetServerStream()
    for chunk in chunks {
        let got: [TelnetServerStream.Input]
        do { got = try server.receive(chunk, reply: &out.reply) } catch {
            out.failed = true
            return out
        }
        for input in got {
            if case .data(let more) = input, case .data(let before)? = out.inputs.last {
                out.inputs[out.inputs.count - 1] = .data(before + more)
            } else {
                out.inputs.append(input)
            }
        }
    }
    for case .comPort(.signature(let text)) in out.inputs {
        precondition(text.count < TelnetParser.maxSubnegotiation, "a subnegotiation past the limit")
    }
    return out
}
