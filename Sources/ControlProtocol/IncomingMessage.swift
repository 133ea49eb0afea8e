import JSONCodec

/// One line a client sent, decoded as JSON-RPC 2.0 says: a single call, or a batch (an array of
/// calls, each decoded as if it had been sent alone).
///
/// Threading: a value. Any thread.
package enum IncomingMessage: Sendable, Hashable {
    case single(Call)
    /// A non-empty array, in the order sent.
    case batch([Call])

    /// The most elements a batch may have; a longer array is refused whole (each element would
    /// be a request in progress, and the per-client limit refuses the rest anyway).
    package static let maxBatchCount = 1_024

    /// Decodes one line (without its `\n`).
    ///
    /// - An object with an `id` is a request (see ``Request/decode(_:maxDepth:)`` for every
    ///   check and its error); without an `id` it is a notification: executed, never answered.
    ///   A notification whose method is unknown or whose params are wrong cannot be answered
    ///   either: it is ``Call/ignored(_:)``. One that is not a request object at all (no
    ///   `method`, a wrong `jsonrpc`) is answered with -32600 and id `null`, as for a request.
    /// - `rpc.discover` (with or without empty params) is ``Call/discover(_:)``.
    /// - An array is a batch: empty, -32600 with id `null`; longer than ``maxBatchCount``,
    ///   -32600 likewise; otherwise each element decoded as above (a nested array is -32600).
    /// - Anything else is answered as ``Request/decode(_:maxDepth:)`` answers it.
    package static func decode(_ line: some Collection<UInt8>, maxDepth: Int = 64) -> IncomingMessage {
        // The common requests in one pass (as `Request.decode` does).
        if maxDepth >= 2, let fast = line.withContiguousStorageIfAvailable({ Request.decodeFastPath($0) }) ?? nil {
            return .single(.request(fast))
        }
        return decodeParsing(line, maxDepth: maxDepth)
    }

    /// ``decode(_:maxDepth:)`` for a line in memory, as the control server has it: the fast path
    /// called directly. (The generic function is not specialized across modules: there the
    /// fast path was reached through `withContiguousStorageIfAvailable`'s witness, about 170
    /// instructions a request.)
    package static func decode(_ line: UnsafeBufferPointer<UInt8>, maxDepth: Int = 64) -> IncomingMessage {
        if maxDepth >= 2, let fast = Request.decodeFastPath(line) { return .single(.request(fast)) }
        return decodeParsing(line, maxDepth: maxDepth)
    }

    /// ``decode(_:maxDepth:)`` without the fast path, for a caller that tried it itself (the
    /// control server, which keeps a device-name cache for it): the line is not read twice.
    package static func decodeGeneral(_ line: UnsafeBufferPointer<UInt8>, maxDepth: Int = 64) -> IncomingMessage {
        decodeParsing(line, maxDepth: maxDepth)
    }

    /// What the fast path left: the JSON tree, then the message's checks.
    private static func decodeParsing(_ line: some Collection<UInt8>, maxDepth: Int) -> IncomingMessage {
        let value: JSONValue
        do throws(JSONParseError) {
            value = try JSONParser.parse(line, options: JSONParser.Options(maxDepth: maxDepth))
        } catch {
            return .single(.rejected(RequestRejection(id: nil, error: RPCError(.parseError, "parse error: \(error)"))))
        }
        guard case .array(let elements) = value else { return .single(Call.decode(value)) }
        if elements.isEmpty {
            return .single(
                .rejected(
                    RequestRejection(
                        id: nil,
                        error: .invalidRequest("an empty batch: send at least one request in the array")
                    )
                )
            )
        }
        if elements.count > maxBatchCount {
            return .single(
                .rejected(
                    RequestRejection(
                        id: nil,
                        error: .invalidRequest(
                            "a batch of \(elements.count) requests; at most \(maxBatchCount) are accepted in one"
                        )
                    )
                )
            )
        }
        return .batch(elements.map(Call.decode))
    }
}

/// One call of an ``IncomingMessage`` and what the server owes for it.
///
/// Threading: a value. Any thread.
package enum Call: Sendable, Hashable {
    /// A request (it has an id): executed and answered.
    case request(Request)
    /// A notification (no id): executed, never answered.
    case notification(Method)
    /// `rpc.discover`: answered with the OpenRPC document (``OpenRPCDocument``); with a nil id
    /// (a notification of it) there is nothing to do.
    case discover(RequestID?)
    /// Not acceptable: answered with this error (its id `null` when none could be read).
    case rejected(RequestRejection)
    /// A notification that cannot be executed (an unknown method, wrong params). JSON-RPC
    /// forbids answering a notification: the server logs and counts it.
    case ignored(RPCError)

    /// The method name JSON-RPC reserves for the OpenRPC service description.
    package static let discoverMethod = "rpc.discover"

    /// Decodes one request or notification object (or anything else, refused).
    static func decode(_ value: JSONValue) -> Call {
        do throws(RequestRejection) {
            let envelope = try Request.decodeEnvelope(value)
            if envelope.name == discoverMethod {
                guard envelope.params?.isEmpty ?? true else {
                    let error = RPCError.invalidParams("rpc.discover takes no params")
                    return envelope.id.map { .rejected(RequestRejection(id: $0, error: error)) } ?? .ignored(error)
                }
                return .discover(envelope.id)
            }
            guard let id = envelope.id else {
                do throws(RPCError) {
                    return .notification(try envelope.method())
                } catch {
                    return .ignored(error)
                }
            }
            do throws(RPCError) {
                return .request(Request(id: id, method: try envelope.method()))
            } catch {
                return .rejected(RequestRejection(id: id, error: error))
            }
        } catch {
            return .rejected(error)
        }
    }
}
