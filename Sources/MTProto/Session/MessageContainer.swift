import CZlib
import TL

/// A message inside `msg_container` (core.telegram.org/mtproto/service_messages#simple-container).
public struct ContainedMessage: Sendable, Equatable {
    public var messageID: Int64
    public var seqno: Int32
    public var body: [UInt8]

    public init(messageID: Int64, seqno: Int32, body: [UInt8]) {
        self.messageID = messageID
        self.seqno = seqno
        self.body = body
    }
}

/// `msg_container#73f1f8dc messages:vector<%Message>` — framed by hand because each body's length is explicit.
public enum MessageContainer {
    public static let maximumMessages = 1_020

    /// The messages of a container body; nil if `body` is not a container. Nested containers are invalid.
    public static func decode(_ body: [UInt8]) throws(TLDecodingError) -> [ContainedMessage]? {
        var reader = TLReader(body)
        guard (try? reader.peekUInt32()) == TLBuiltinID.msgContainer else { return nil }
        _ = try reader.readUInt32()
        let count = Int(try reader.readInt32())
        guard (0...maximumMessages).contains(count) else { throw .badLength(offset: 4, length: count) }
        var messages: [ContainedMessage] = []
        messages.reserveCapacity(count)
        for _ in 0..<count {
            let messageID = try reader.readInt64()
            let seqno = try reader.readInt32()
            let lengthOffset = reader.offset
            let length = Int(try reader.readInt32())
            guard length >= 4, length % 4 == 0 else { throw .badLength(offset: lengthOffset, length: length) }
            let inner = Array(try reader.readRaw(count: length))
            if inner.starts(with: [0xdc, 0xf8, 0xf1, 0x73]) {
                throw .unknownConstructor(id: TLBuiltinID.msgContainer, offset: lengthOffset + 4, expectedType: "message in a container")
            }
            messages.append(ContainedMessage(messageID: messageID, seqno: seqno, body: inner))
        }
        try reader.expectEnd()
        return messages
    }

    /// What this project puts in one container it sends: at most this many messages and about this many bytes of
    /// bodies (well inside the protocol's 1,020 messages), so one packet stays a bounded piece of work.
    public static let sendLimit = (messages: 64, bytes: 256 * 1024)

    /// Consecutive runs of messages (given by body size) that each fit one container within `sendLimit`, keeping
    /// `reserving` places free for messages added later (an acknowledgement); a message over the byte limit goes alone.
    public static func groups(sizes: [Int], reserving: Int = 0) -> [Range<Int>] {
        var groups: [Range<Int>] = []
        var start = 0
        while start < sizes.count {
            var end = start + 1
            var bytes = sizes[start]
            while end < sizes.count, end - start < sendLimit.messages - reserving, bytes + sizes[end] <= sendLimit.bytes {
                bytes += sizes[end]
                end += 1
            }
            groups.append(start..<end)
            start = end
        }
        return groups
    }

    public static func encode(_ messages: [ContainedMessage]) -> [UInt8] {
        var writer = TLWriter(capacity: 8 + messages.reduce(0) { $0 + 16 + $1.body.count })
        writer.writeUInt32(TLBuiltinID.msgContainer)
        writer.writeInt32(Int32(messages.count))
        for message in messages {
            writer.writeInt64(message.messageID)
            writer.writeInt32(message.seqno)
            writer.writeInt32(Int32(message.body.count))
            writer.writeRaw(message.body)
        }
        return writer.bytes
    }
}

/// `gzip_packed#3072cfa1 packed_data:string = Object` (core.telegram.org/mtproto/service_messages#packed-object).
///
/// Inflating is bounded by a budget the caller owns — one per received packet — so nested or repeated bombs (a
/// container of `gzip_packed` items) cost no more memory and CPU than one: every inflated byte is counted against
/// it as it is produced, and inflating stops at the budget.
public enum GzipPacked {
    /// A budget for one packet when the caller has no tighter one (a client reading a server's answers).
    public static let maximumUnpackedSize = 16 << 20

    public enum Failure: Error, Equatable, Sendable {
        case corrupt
        case tooLarge
    }

    /// The packed object if `body` is `gzip_packed`; nil otherwise. Inflating more than `budget` bytes throws
    /// `.tooLarge`; what was inflated is taken from `budget`.
    public static func unpack(_ body: [UInt8], budget: inout Int) throws(GzipPacked.Failure) -> [UInt8]? {
        var reader = TLReader(body)
        guard (try? reader.readUInt32()) == TLBuiltinID.gzipPacked else { return nil }
        guard let packed = try? reader.readByteSlice(), reader.isAtEnd else { throw .corrupt }
        let inflated = try inflate(packed, limit: budget)
        budget -= inflated.count
        return inflated
    }

    /// `unpack(_:budget:)` with a budget of `maximumUnpackedSize` for this one body.
    public static func unpack(_ body: [UInt8]) throws(GzipPacked.Failure) -> [UInt8]? {
        var budget = maximumUnpackedSize
        return try unpack(body, budget: &budget)
    }

    /// `gzip_packed` wrapping `object`.
    public static func pack(_ object: [UInt8]) -> [UInt8] {
        var writer = TLWriter(capacity: object.count / 2 + 16)
        writer.writeUInt32(TLBuiltinID.gzipPacked)
        writer.writeBytes(deflate(object))
        return writer.bytes
    }

    static func inflate(_ data: ArraySlice<UInt8>, limit: Int) throws(GzipPacked.Failure) -> [UInt8] {
        guard limit >= 0 else { throw .tooLarge }
        var stream = z_stream()
        // 15 + 32: accept gzip or zlib headers.
        guard inflateInit2_(&stream, 15 + 32, ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size)) == Z_OK else { throw .corrupt }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        var status: Int32 = Z_OK
        var overLimit = false
        var input = Array(data)
        input.withUnsafeMutableBufferPointer { inputBuffer in
            stream.next_in = inputBuffer.baseAddress
            stream.avail_in = uInt(inputBuffer.count)
            repeat {
                // Never ask zlib for more than the budget has left (+1 to see that it was exceeded).
                let room = min(chunk.count, limit - output.count + 1)
                status = chunk.withUnsafeMutableBufferPointer { chunkBuffer in
                    stream.next_out = chunkBuffer.baseAddress
                    stream.avail_out = uInt(room)
                    return CZlib.inflate(&stream, Z_NO_FLUSH)
                }
                let produced = room - Int(stream.avail_out)
                if output.count + produced > limit {
                    overLimit = true
                    break
                }
                output.append(contentsOf: chunk[0..<produced])
            } while status == Z_OK && (stream.avail_in > 0 || stream.avail_out == 0)
        }
        if overLimit { throw .tooLarge }
        guard status == Z_STREAM_END else { throw .corrupt }
        return output
    }

    static func deflate(_ data: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        // 15 + 16: gzip header, as real clients send and expect. Level 1 (fastest): packing a 100 KB difference at
        // the default level 6 cost a server more than a tenth of its time; the sizes differ by a few percent.
        guard deflateInit2_(&stream, Z_BEST_SPEED, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, ZLIB_VERSION,
                            Int32(MemoryLayout<z_stream>.size)) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 32)
        var input = data
        let written: Int = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                stream.next_in = inputBuffer.baseAddress
                stream.avail_in = uInt(inputBuffer.count)
                stream.next_out = outputBuffer.baseAddress
                stream.avail_out = uInt(outputBuffer.count)
                _ = CZlib.deflate(&stream, Z_FINISH)
                return outputBuffer.count - Int(stream.avail_out)
            }
        }
        return Array(output[0..<written])
    }
}
