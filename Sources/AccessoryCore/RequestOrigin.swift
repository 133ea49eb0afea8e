import ControlProtocol
import Glibc
import JSONCodec

/// Who sent a request and how to answer them: the daemon adapts a control-server connection to
/// this, tests use a recorder. AccessoryCore never sees sockets.
///
/// Any thread: every member may be called from the device loop.
public protocol RequestOrigin: AnyObject, Sendable {
    /// Unique per connection for the daemon's lifetime.
    var clientID: UInt64 { get }
    var uid: uid_t { get }
    var gid: gid_t { get }
    /// Supplementary groups, best effort.
    var groups: [gid_t] { get }
    /// The client's process id at connect (0 when unknown), for `clients.list`.
    var pid: Int32 { get }
    /// When the client connected, in milliseconds since the Unix epoch (0 when unknown).
    var connectedSinceMs: Int64 { get }
    /// Sends the one response to request `id`. Called exactly once per request.
    func respond(id: RequestID, result: Result<any JSONEncodable & Sendable, RPCError>)
    /// ``respond(id:result:)`` with a success, its type known: the requests' answers go this
    /// way, so that an origin that can encode the type directly (a socket client) need not box
    /// it in an existential and copy it through its value witnesses. The default boxes it.
    func respond<Answer: JSONEncodable & Sendable>(id: RequestID, success result: Answer)
    /// Sends already-encoded notifications: one line or several, each ending with "\n". On a
    /// raw (`attach`ed) connection: the device's bytes, as they are.
    func notify(line: [UInt8])
    /// The `attach` succeeded (its response is sent): the client's bytes go to `input` from now
    /// on, called on any thread, in order.
    func beginRaw(input: @escaping @Sendable ([UInt8]) -> Void)
    /// Stops or restarts reading the raw client's bytes (back-pressure from the device).
    func pauseRawInput(_ paused: Bool)
    /// Closes the client's connection (its raw device went away).
    func disconnect(reason: String)
    /// Whether the daemon may end a raw stream with a notice line of its own (`device.detached`):
    /// a socket client can tell it apart; a pty view's program would read it as the device's.
    var wantsRawNotices: Bool { get }
}

extension RequestOrigin {
    public func respond<Answer: JSONEncodable & Sendable>(id: RequestID, success result: Answer) {
        respond(id: id, result: .success(result))
    }
    public var wantsRawNotices: Bool { true }
    public var pid: Int32 { 0 }
    public var connectedSinceMs: Int64 { 0 }
}
