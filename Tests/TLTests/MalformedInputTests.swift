import Foundation
import SyncTesting
import Testing
import TL

/// Malformed input ends in a typed error, never a trap.
struct MalformedInputTests {
    /// Valid encodings of many shapes: Telethon's golden objects plus arbitrary values of every combinator.
    static func validEncodings() -> [(name: String, bytes: [UInt8], decode: ([UInt8]) throws -> Void)] {
        var out: [(String, [UInt8], ([UInt8]) throws -> Void)] = []
        func add<Value: TLValue>(_ name: String, _ value: Value) {
            out.append((name, value.serialized(), { _ = try Value.deserialize($0) }))
        }
        for (name, value) in TelethonGoldenObjects.all.sorted(by: { $0.key < $1.key }) { add(name, value) }
        var generator = TLArbitraryGenerator(seed: 99)
        for value in API.arbitraryOfEveryCombinator(using: &generator).prefix(300) { add(value.constructorName, value) }
        return out
    }

    @Test func truncationAtEveryOffsetThrowsTruncatedOrBadLength() throws {
        for sample in Self.validEncodings() {
            for length in 0..<sample.bytes.count {
                do {
                    try sample.decode(Array(sample.bytes[..<length]))
                    Issue.record("\(sample.name) truncated to \(length) of \(sample.bytes.count) bytes decoded")
                } catch let error as TLDecodingError {
                    switch error {
                    case .truncated, .badLength: break
                    default: Issue.record("\(sample.name) truncated to \(length): unexpected \(error)")
                    }
                }
            }
        }
    }

    @Test func unknownConstructorNamesIdOffsetAndType() {
        var bytes = API.Updates.updatesTooLong(.init()).serialized()
        bytes = [0xEF, 0xBE, 0xAD, 0xDE] + bytes.dropFirst(4)
        #expect(throws: TLDecodingError.unknownConstructor(id: 0xDEAD_BEEF, offset: 0, expectedType: "Updates")) {
            try API.Updates.deserialize(bytes)
        }
        // Inside a vector: the offset points at the bad element.
        let valid = API.updates.Difference.differenceEmpty(.init(date: 1, seq: 2))
        var nested = TLWriter()
        nested.writeVectorHeader(count: 2)
        valid.encode(to: &nested)
        nested.writeUInt32(0x1234_5678)
        #expect(throws: TLDecodingError.unknownConstructor(id: 0x1234_5678, offset: 20, expectedType: "updates.Difference")) {
            try [API.updates.Difference].deserialize(nested.bytes)
        }
    }

    @Test func hugeLengthsAreRejectedBeforeAllocating() {
        // A vector claiming 2^31 - 1 elements in 8 bytes of input.
        var vector = TLWriter()
        vector.writeVectorHeader(count: Int(Int32.max))
        #expect(throws: TLDecodingError.badLength(offset: 4, length: Int(Int32.max))) { try [Int64].deserialize(vector.bytes) }
        // A negative count.
        var negative = TLWriter()
        negative.writeVectorHeader(count: -1)
        #expect(throws: TLDecodingError.badLength(offset: 4, length: -1)) { try [Int32].deserialize(negative.bytes) }
        // A string claiming 16 MiB - 1 bytes.
        #expect(throws: TLDecodingError.badLength(offset: 0, length: 0xFF_FFFF)) {
            try String.deserialize([0xFE, 0xFF, 0xFF, 0xFF, 0x41, 0x41, 0x41, 0x41])
        }
        // 255 is not a valid length byte.
        #expect(throws: TLDecodingError.badLength(offset: 0, length: 255)) { try Data.deserialize([0xFF, 0, 0, 0]) }
    }

    @Test func deepNestingIsRejected() {
        // updateShort { update: updateShort? } cannot nest, but Updates inside InvokeAfterMsg queries can:
        // invokeAfterMsg(invokeAfterMsg(… help.getConfig)) nested far past the limit.
        var writer = TLWriter()
        let depth = TLReader.maximumDepth + 10
        for _ in 0..<depth {
            writer.writeUInt32(API.functions.InvokeAfterMsg<TLAnyFunction>.constructorID)
            writer.writeInt64(1)
        }
        API.functions.help.GetConfig().encode(to: &writer)
        do {
            _ = try TLAnyFunction.deserialize(writer.bytes)
            Issue.record("decoded \(depth) nested queries")
        } catch {
            guard case .nestingTooDeep(_, let limit) = error else { Issue.record("unexpected \(error)"); return }
            #expect(limit == TLReader.maximumDepth)
        }
        // Within the limit the same shape decodes.
        var shallow = TLWriter()
        for _ in 0..<5 {
            shallow.writeUInt32(API.functions.InvokeAfterMsg<TLAnyFunction>.constructorID)
            shallow.writeInt64(1)
        }
        API.functions.help.GetConfig().encode(to: &shallow)
        #expect((try? TLAnyFunction.deserialize(shallow.bytes)) != nil)
    }

    @Test func trailingBytesAreReported() {
        let bytes = API.Updates.updatesTooLong(.init()).serialized() + [0, 0, 0, 0]
        #expect(throws: TLDecodingError.trailingBytes(offset: 4, count: 4)) { try API.Updates.deserialize(bytes) }
    }

    @Test func badJSONNamesTheField() {
        #expect(throws: TLJSONError.missingField(path: "pts")) {
            try API.Updates(jsonText: #"{"_": "updateShortSentMessage", "id": 1, "pts_count": 1, "date": 2}"#)
        }
        #expect(throws: TLJSONError.typeMismatch(path: "updates[0].max_id", expected: "a 32-bit integer")) {
            try API.Updates(jsonText: #"{"_": "updatesCombined", "updates": [{"_": "updateReadHistoryOutbox", "peer": {"_": "peerUser", "user_id": 1}, "max_id": 4294967296, "pts": 1, "pts_count": 1}], "users": [], "chats": [], "date": 1, "seq_start": 1, "seq": 1}"#)
        }
        #expect(throws: TLJSONError.unknownConstructor(name: "updateNope", path: "$")) {
            try API.Updates(jsonText: #"{"_": "updateNope"}"#)
        }
    }
}
