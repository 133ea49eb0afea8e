import ControlProtocol

/// How a ``TraceWriter`` keeps records in its buffer between the device loop and its thread: a
/// fixed head, then the request id's JSON (if any), then the bytes. One flat byte array, so
/// queuing a record allocates nothing once the buffer has grown.
///
/// Head (little-endian): timestamp µs (8), kind (1: 0 rx, 1 tx, 2 drop mark, 3 control), has client (1),
/// request id length (2), byte count (4), client id or dropped count (8).
///
/// Threading: stateless. Any thread.
enum RecordHeader {
    static let size = 24

    /// One record read back.
    ///
    /// Threading: a value, valid while the buffer it points into is.
    struct Record {
        var timestampMicroseconds: Int64
        var direction: TrafficRecord.Direction
        var client: UInt64?
        var request: RequestID?
        var bytes: UnsafeBufferPointer<UInt8>
        /// For a drop mark: how many bytes are missing.
        var droppedCount: Int64?
        /// Where the next record starts.
        var end: Int
    }

    static func append(
        direction: TrafficRecord.Direction,
        timestampMicroseconds: Int64,
        client: UInt64?,
        request: RequestID?,
        bytes: UnsafeBufferPointer<UInt8>,
        to buffer: inout [UInt8]
    ) {
        let start = buffer.count
        appendInteger(UInt64(bitPattern: timestampMicroseconds), bytes: 8, to: &buffer)
        buffer.append(Self.kind(of: direction))
        buffer.append(client == nil ? 0 : 1)
        appendInteger(0, bytes: 2, to: &buffer)  // the request id's length, set below
        appendInteger(UInt64(bytes.count), bytes: 4, to: &buffer)
        appendInteger(client ?? 0, bytes: 8, to: &buffer)
        if let request {
            let idStart = buffer.count
            request.encodeJSON(into: &buffer)
            let length = buffer.count - idStart
            buffer[start + 10] = UInt8(truncatingIfNeeded: length)
            buffer[start + 11] = UInt8(truncatingIfNeeded: length >> 8)
        }
        buffer.append(contentsOf: bytes)
    }

    static func appendDropMark(count: Int64, timestampMicroseconds: Int64, to buffer: inout [UInt8]) {
        appendInteger(UInt64(bitPattern: timestampMicroseconds), bytes: 8, to: &buffer)
        buffer.append(2)
        buffer.append(0)
        appendInteger(0, bytes: 2, to: &buffer)
        appendInteger(0, bytes: 4, to: &buffer)
        appendInteger(UInt64(count), bytes: 8, to: &buffer)
    }

    static func read(_ buffer: UnsafeBufferPointer<UInt8>, at offset: Int) -> Record {
        let timestamp = Int64(bitPattern: integer(buffer, offset, bytes: 8))
        let kind = buffer[offset + 8]
        let hasClient = buffer[offset + 9] != 0
        let idLength = Int(integer(buffer, offset + 10, bytes: 2))
        let count = Int(integer(buffer, offset + 12, bytes: 4))
        let word = integer(buffer, offset + 16, bytes: 8)
        let idStart = offset + size
        let bytesStart = idStart + idLength
        let end = bytesStart + count
        if kind == 2 {
            return Record(
                timestampMicroseconds: timestamp,
                direction: .rx,
                bytes: UnsafeBufferPointer(rebasing: buffer[bytesStart..<bytesStart]),
                droppedCount: Int64(word),
                end: end
            )
        }
        let request = idLength > 0 ? RequestID(jsonText: buffer[idStart..<bytesStart]) : nil
        return Record(
            timestampMicroseconds: timestamp,
            direction: kind == 0 ? .rx : kind == 1 ? .tx : .control,
            client: hasClient ? word : nil,
            request: request,
            bytes: UnsafeBufferPointer(rebasing: buffer[bytesStart..<end]),
            droppedCount: nil,
            end: end
        )
    }

    private static func kind(of direction: TrafficRecord.Direction) -> UInt8 {
        switch direction {
        case .rx: 0
        case .tx: 1
        case .control: 3
        }
    }

    private static func appendInteger(_ value: UInt64, bytes: Int, to buffer: inout [UInt8]) {
        for index in 0..<bytes { buffer.append(UInt8(truncatingIfNeeded: value >> (8 * index))) }
    }

    private static func integer(_ buffer: UnsafeBufferPointer<UInt8>, _ offset: Int, bytes: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in 0..<bytes { value |= UInt64(buffer[offset + index]) << (8 * index) }
        return value
    }
}
