import AccessoryTestSupport
import ControlProtocol
import Glibc
import JSONCodec

// What the suites wait for on a device through the daemon. Each is bounded; any thread (each
// uses only the client it is given).

/// Reads `device.state` notifications (bounded) until `device` reports `state`; returns the
/// seconds it took.
func waitForState(_ client: RPCClient, _ device: String, _ state: String, seconds: Double = 10) throws -> Double {
    let start = MonotonicNow.seconds()
    _ = try client.notification(seconds: seconds) { n in
        n.method == "device.state" && n.params["device"]?.stringValue == device
            && n.params["state"]?.stringValue == state
    }
    return MonotonicNow.seconds() - start
}

/// Asks for `device.status` (bounded) until `condition` holds for it; returns whether it did.
/// Each try is a round trip to the daemon; the pause between tries only spares the CPU.
func waitForStatus(
    _ client: RPCClient,
    _ device: String,
    seconds: Double = 5,
    _ condition: (JSONValue) -> Bool
) throws -> Bool {
    let deadline = Deadline(seconds: seconds)
    while true {
        if condition(try client.result("device.status", Params.device(device))) { return true }
        if deadline.hasPassed { return false }
        usleep(2_000)
    }
}
