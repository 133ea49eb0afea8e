import AccessorySimulator
import AccessoryTestSupport
import Glibc
import Testing

@testable import AccessoryCore

/// `access:` decides what a view receives, as it decides what a view may send: a view whose owner
/// the accessory's `access:` does not allow gets none of its unclaimed frames.
///
/// Threading: the test's thread; the harness's loop runs the registry.
@Suite("pty views: access: is checked for what a view receives")
struct ViewAccessTests {
    @Test("monitor: a view of an owner access: refuses receives nothing; an allowed owner's view receives the frame")
    func monitorOfARefusedOwnerReceivesNothing() throws {
        let h = try ViewHarness.accessPair(mode: "monitor")
        #expect(h.core.waitReady("echo"))
        let nobody = try #require(h.open("nobody"))
        let allowed = try #require(h.open("allowed"))
        defer {
            close(nobody)
            close(allowed)
        }
        // A `write` claims no answer: the echo comes back unclaimed, to the views (and subscribers).
        h.core.request(
            #"{"jsonrpc":"2.0","id":1,"method":"write","params":{"device":"echo","data":"secret"}}"#,
            from: RecordingOrigin(clientID: 1)
        )
        #expect(String(decoding: h.read(allowed, atLeast: 7), as: UTF8.self) == "secret\n")
        // Both views are served in the same turn of the loop: the allowed one has it, so the other
        // would have it by now too.
        let leaked = h.readFor(nobody, seconds: 0.3)
        #expect(leaked.isEmpty, "uid 65534's view received \(String(decoding: leaked, as: UTF8.self))")
        #expect(h.counter("nobody", "bytes_to_program") == 0)
    }
}
