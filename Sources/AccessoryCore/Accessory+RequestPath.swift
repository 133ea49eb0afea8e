import ControlProtocol
import IOLoop
import Transports

/// What a request reports to its accessory: the frame it sends and how it ended. The accessory
/// counts both (its counters are its own) and holds the claim on inbound frames
/// (``Accessory/claim(for:until:)``); the request only decides what its exchange means.
///
/// A value. Device loop only.
enum RequestOutcome {
    /// Answered; with the time from start to answer, when the request started.
    case succeeded(elapsedNanoseconds: UInt64?)
    case timedOut
    case cancelled
    case failed
}

extension Accessory {
    /// The open device requests may use now: ready (settling is not). Device loop.
    var deviceForRequests: OpenDevice? {
        if case .ready(let device, _) = linkState { return device }
        return nil
    }

    /// Frames `payload` and writes it to `device` for `request`, counting it. A payload the
    /// framing cannot carry, or a device that refuses the bytes, is the request's `io` error.
    /// Device loop.
    func sendFrame(_ payload: [UInt8], to device: OpenDevice, for request: RequestOperation) throws(AccessoryError) {
        // Encoded into a buffer kept between frames: the channel writes it at once or copies
        // what the device does not take yet (a trace keeping it makes the next frame a new one).
        var encoded = frameBuffer
        frameBuffer = []
        defer {
            encoded.removeAll(keepingCapacity: true)
            frameBuffer = encoded
        }
        do {
            try device.reader.encode(payload, appendingTo: &encoded)
            try send(encoded, on: device.channel, for: request)
            counters.bytesOut += UInt64(encoded.count)
            counters.framesOut += 1
        } catch let error as FramingError {
            throw .io(device: name, reason: error.description)
        } catch {
            throw .io(device: name, reason: "\(error)")
        }
    }

    /// A request answered with `outcome`. Device loop.
    func record(_ outcome: RequestOutcome) {
        switch outcome {
        case .succeeded(let elapsed):
            counters.requestsOK += 1
            if let elapsed { counters.recordLatency(nanoseconds: elapsed) }
        case .timedOut: counters.requestsTimedOut += 1
        case .cancelled: counters.requestsCancelled += 1
        case .failed: counters.requestsFailed += 1
        }
    }
}
