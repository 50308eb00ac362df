import Foundation
import SyncTesting
import Testing
import TL

/// Every generated constructor and function survives bytes → value and JSON → value unchanged.
struct RoundTripPropertyTests {
    static let seeds: [UInt64] = Array(1...12)

    @Test(arguments: seeds)
    func everyCombinatorRoundTripsThroughBytesAndJSON(seed: UInt64) throws {
        var generator = TLArbitraryGenerator(seed: seed)
        let values = API.arbitraryOfEveryCombinator(using: &generator) + MT.arbitraryOfEveryCombinator(using: &generator)
        for value in values {
            try expectRoundTrip(value)
        }
    }

    /// Fields that share a flag bit are written together or not at all: a value with only one of them set encodes
    /// without either (before, the bit was set and the missing field's bytes absent, which no decoder can read).
    @Test func fieldsSharingABitAreWrittenTogetherOrNotAtAll() throws {
        let partial = API.ChannelParticipant.channelParticipantAdmin(.init(
            self: true, userId: 1, promotedBy: 2, date: 3, adminRights: .chatAdminRights(.init(changeInfo: true))))
        guard case let .channelParticipantAdmin(read) = try API.ChannelParticipant.deserialize(partial.serialized()) else {
            Issue.record("not an admin"); return
        }
        #expect(!read.`self` && read.inviterId == nil && read.date == 3)
        let whole = API.ChannelParticipant.channelParticipantAdmin(.init(
            self: true, userId: 1, inviterId: 9, promotedBy: 2, date: 3, adminRights: .chatAdminRights(.init())))
        #expect(try API.ChannelParticipant.deserialize(whole.serialized()) == whole)
    }

    @Test func everySchemaCombinatorIsGenerated() throws {
        var generator = TLArbitraryGenerator(seed: 0)
        let names = Set((API.arbitraryOfEveryCombinator(using: &generator) + MT.arbitraryOfEveryCombinator(using: &generator))
            .map(\.constructorName))
        let expected = try SchemaFiles.combinatorNames("api.tl").union(SchemaFiles.combinatorNames("mtproto.tl"))
        #expect(names == expected)
        #expect(names.count > 700)
    }

    @Test func registriesFindEveryCombinatorByIDAndName() throws {
        var generator = TLArbitraryGenerator(seed: 5)
        for value in API.arbitraryOfEveryCombinator(using: &generator) + MT.arbitraryOfEveryCombinator(using: &generator) {
            let bytes = value.serialized()
            var reader = TLReader(bytes)
            let id = try reader.readUInt32()
            let decoded: (any TLObject)?
            if value is any TLFunction {
                decoded = try TLRegistry.decodeFunction(id: id, from: &reader)
            } else {
                decoded = try TLRegistry.decodeObject(id: id, from: &reader)
            }
            #expect(decoded.map { $0.serialized() } == bytes, "\(value.constructorName)")
            #expect(API.name(ofConstructor: id) ?? MT.name(ofConstructor: id) == value.constructorName)
        }
    }

    private func expectRoundTrip<Value: TLConstructor>(_ value: Value) throws {
        let bytes = value.serialized()
        let decoded = try Value.deserialize(bytes)
        #expect(decoded == value, "bytes round trip of \(Value.constructorName)")
        #expect(decoded.serialized() == bytes)

        let text = value.toJSON().serialized()
        let fromJSON = try Value(jsonText: text)
        #expect(fromJSON == value, "JSON round trip of \(Value.constructorName): \(text.prefix(300))")
    }
}

/// Reads the project's schema files (test input only; the schema ships beside the generated code).
enum SchemaFiles {
    static func url(_ name: String) -> URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/TL/Schema/\(name)")
    }

    /// Names of the combinators defined (not commented out) in a schema file.
    static func combinatorNames(_ file: String) throws -> Set<String> {
        let text = try String(contentsOf: url(file), encoding: .utf8)
        var names = Set<String>()
        for line in text.split(separator: "\n") where !line.hasPrefix("//") {
            guard let hash = line.firstIndex(of: "#"), line.contains(";") else { continue }
            names.insert(String(line[..<hash]))
        }
        return names
    }
}
