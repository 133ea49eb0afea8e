// libFuzzer target: the control protocol's decoders, fed hostile bytes (one request line).
//
// Besides "no crash, no leak, no hang", each input is checked against properties that hold for
// every line: a decoded request re-encodes to a line that decodes to the same request; a rejected
// line's error response is itself a valid message carrying the rejection's id; parsed JSON
// re-encodes to text that parses and re-encodes to the same bytes; base64 that decodes
// round-trips; the one-pass decoder of `transact` and `write` answers only lines the general
// decoder accepts, with the same request. A broken property traps, which libFuzzer reports as a crash with the input.
//
// The parser and the JSON writer (JSONCodec) and the fast path (ControlProtocol) are `package`
// declarations: this file is compiled as part of the package (fuzz/run.sh gives swiftc the
// package's name), as the tests are.
//
// Threading: libFuzzer calls the entry point on one thread.
import ControlProtocol
import JSONCodec

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOneInput(_ start: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    let line = Array(UnsafeBufferPointer(start: start, count: count))
    checkRequestDecoding(line)
    checkFastPath(line)
    checkJSONRoundTrip(line)
    checkBase64(line)
    // The client side's decoder of server lines must survive anything too.
    _ = try? ServerMessage.decode(line)
    return 0
}

/// A request decodes to the same request from its own encoding; a rejection's response is a
/// valid response line with the rejection's id and an error.
func checkRequestDecoding(_ line: [UInt8]) {
    do throws(RequestRejection) {
        let request = try Request.decode(line)
        let again = request.line
        precondition(again.last == 0x0A, "a request line ends in a newline")
        do throws(RequestRejection) {
            let decoded = try Request.decode(again.dropLast())
            precondition(decoded == request, "re-decoded \(decoded) != \(request)")
        } catch {
            preconditionFailure("our own encoding of \(request) was rejected: \(error)")
        }
    } catch {
        let response = error.responseLine
        precondition(response.last == 0x0A && !response.dropLast().contains(0x0A), "one response line")
        do throws(MessageDecodingError) {
            guard case .response(let r) = try ServerMessage.decode(response.dropLast()) else {
                preconditionFailure("the rejection was not sent as a response")
            }
            precondition(r.id == error.id, "the rejection's id was not echoed")
            precondition(r.error != nil, "a rejection must carry an error")
        } catch {
            preconditionFailure("the error response is not a valid message: \(error)")
        }
    }
}

/// Where the fast path answers, the general decoder (the tree, then its checks) accepts the line
/// and decodes the same request.
/// The second decode goes through a device-name cache shared by every input, as a connection's
/// is by its requests: a name it keeps must never leak into a request naming another device.
func checkFastPath(_ line: [UInt8]) {
    guard let fast = line.withUnsafeBufferPointer({ Request.decodeFastPath($0) }) else { return }
    let general = (try? JSONParser.parse(line)).flatMap { value in try? Request.decode(value) }
    precondition(general == fast, "fast path \(fast) != general decoder \(String(describing: general))")
    let cached = line.withUnsafeBufferPointer { Request.decodeFastPath($0, names: &sharedDeviceNames) }
    precondition(cached == fast, "with the name cache \(String(describing: cached)) != \(fast)")
}

/// libFuzzer runs the inputs one at a time, on one thread.
nonisolated(unsafe) var sharedDeviceNames = DeviceNames()

/// Parsed JSON re-encodes to bytes that parse, and re-encoding those gives the same bytes.
func checkJSONRoundTrip(_ bytes: [UInt8]) {
    guard let value = try? JSONParser.parse(bytes) else { return }
    var first: [UInt8] = []
    JSONOutput.appendValue(value, to: &first)
    guard let reparsed = try? JSONParser.parse(first) else {
        preconditionFailure("our JSON output does not parse: \(String(decoding: first, as: UTF8.self))")
    }
    var second: [UInt8] = []
    JSONOutput.appendValue(reparsed, to: &second)
    precondition(first == second, "JSON output is not stable under a round trip")
}

/// Base64 that decodes encodes back to text that decodes to the same bytes.
func checkBase64(_ text: [UInt8]) {
    guard let bytes = try? Base64.decode(text) else { return }
    var encoded: [UInt8] = []
    Base64.encode(bytes, into: &encoded)
    guard let again = try? Base64.decode(encoded), again == bytes else {
        preconditionFailure("base64 round trip failed for \(bytes.count) bytes")
    }
}
