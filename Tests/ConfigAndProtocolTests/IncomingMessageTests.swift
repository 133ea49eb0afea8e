import Foundation
import JSONCodec
import Testing

@testable import ControlProtocol

/// Decoding what a client sends as JSON-RPC 2.0 says: requests, notifications, batches,
/// `rpc.discover`; and the embedded OpenRPC document against docs/accessoryd.openrpc.json.
@Suite("incoming messages: requests, notifications, batches, rpc.discover")
struct IncomingMessageTests {
    func decode(_ text: String) -> IncomingMessage { IncomingMessage.decode(Array(text.utf8)) }

    @Test("a request is a request, through the fast path or the general decoder alike")
    func requests() {
        let fast = decode(#"{"jsonrpc":"2.0","id":1,"method":"write","params":{"device":"d","data":"x"}}"#)
        #expect(
            fast == .single(.request(Request(id: .int(1), method: .write(TransferParams(device: "d", data: [120])))))
        )
        let general = decode(#"{"method":"devices.list","id":"a","jsonrpc":"2.0"}"#)
        #expect(general == .single(.request(Request(id: .string("a"), method: .devicesList))))
    }

    @Test("a line in memory (the control server's way) decodes as the general decoder reads the same bytes")
    func lineInMemory() {
        let lines = [
            #"{"jsonrpc":"2.0","id":1,"method":"transact","params":{"device":"echo","data":"k0s1............"}}"#,
            #"{"jsonrpc": "2.0", "id": 7, "method": "write", "params": {"device": "m", "data": "x", "wait_ms": 0}}"#,
            #"{"jsonrpc":"2.0","id":2,"method":"read","params":{"device":"echo","max_frames":3}}"#,
            #"{"jsonrpc":"2.0","id":3,"method":"transact","params":{"device":"echo"}}"#,
            #"{"jsonrpc":"2.0","method":"transact","params":{"device":"e","data":"x"}}"#,
            #"[{"jsonrpc":"2.0","id":4,"method":"transact","params":{"device":"e","data":"x"}},1]"#,
            #"{"jsonrpc":"2.0","id":5,"method":"rpc.discover"}"#,
            #"{"jsonrpc":"2.0","id":6,"method":"transact","params":{"device":"e","data":"x"}"#,
            "",
        ]
        for line in lines {
            let bytes = Array(line.utf8)
            let inMemory = bytes.withUnsafeBufferPointer { IncomingMessage.decode($0) }
            // A collection without contiguous storage never takes the fast path: the JSON tree only.
            let general = IncomingMessage.decode(bytes.lazy.map { $0 })
            #expect(inMemory == general, "\(line)")
            let shallow = bytes.withUnsafeBufferPointer { IncomingMessage.decode($0, maxDepth: 1) }
            #expect(shallow == IncomingMessage.decode(bytes.lazy.map { $0 }, maxDepth: 1), "\(line), depth 1")
        }
    }

    @Test("without an id: a notification; an unknown method or wrong params is ignored, a broken object refused")
    func notifications() {
        #expect(decode(#"{"jsonrpc":"2.0","method":"devices.list"}"#) == .single(.notification(.devicesList)))
        guard case .single(.ignored(let unknown)) = decode(#"{"jsonrpc":"2.0","method":"frob"}"#) else {
            Issue.record("an unknown notification was not ignored")
            return
        }
        #expect(unknown.code == -32601)
        guard case .single(.ignored(let wrong)) = decode(#"{"jsonrpc":"2.0","method":"write","params":{}}"#) else {
            Issue.record("a notification with wrong params was not ignored")
            return
        }
        #expect(wrong.code == -32602)
        guard case .single(.rejected(let broken)) = decode(#"{"jsonrpc":"2.0","method":1}"#) else {
            Issue.record("a notification without a string method was not refused")
            return
        }
        #expect(broken.id == nil && broken.error.code == -32600)
    }

    @Test("batches: each element as if alone, in order; empty, nested and oversized ones refused")
    func batches() {
        let batch = decode(
            #"[{"jsonrpc":"2.0","id":1,"method":"devices.list"},{"jsonrpc":"2.0","method":"daemon.status"},"#
                + #"{"jsonrpc":"2.0","id":2,"method":"rpc.discover"},[],7]"#
        )
        guard case .batch(let calls) = batch, calls.count == 5 else {
            Issue.record("not a batch of five: \(batch)")
            return
        }
        #expect(calls[0] == .request(Request(id: .int(1), method: .devicesList)))
        #expect(calls[1] == .notification(.daemonStatus))
        #expect(calls[2] == .discover(.int(2)))
        for call in calls[3...] {
            guard case .rejected(let r) = call else {
                Issue.record("\(call) was not refused")
                continue
            }
            #expect(r.id == nil && r.error.code == -32600)
        }
        for line in [
            "[]", "[" + Array(repeating: "1", count: IncomingMessage.maxBatchCount + 1).joined(separator: ",") + "]",
        ] {
            guard case .single(.rejected(let r)) = decode(line) else {
                Issue.record("\(line.prefix(20)) was not refused")
                continue
            }
            #expect(r.id == nil && r.error.code == -32600)
        }
        guard case .single(.rejected(let parse)) = decode("[1,") else {
            Issue.record("broken JSON was not refused")
            return
        }
        #expect(parse.error.code == -32700)
    }

    @Test("the embedded OpenRPC document is docs/accessoryd.openrpc.json (run scripts/embed-openrpc.py)")
    func documentMatchesTheFile() throws {
        let url = repositoryRoot.appendingPathComponent("docs/accessoryd.openrpc.json")
        let file = try JSONParser.parse([UInt8](try Data(contentsOf: url)))
        #expect(try JSONParser.parse(OpenRPCDocument.bytes) == file)
    }
}
