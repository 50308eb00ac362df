import Foundation
import GRDB
import Testing
@testable import SyncServer

/// The records' one codec (`StoredRecord`): what a record writes, its reader reads back, column by column, for every
/// record type; and a damaged cell in a real database is a typed error, not a trap.
struct StoredRecordCodecTests {
    /// Values as a backend would bind them, read back as cells: the neutral half of both backends.
    struct Cells: RecordValues, RecordCells {
        enum Value: Equatable { case int(Int64), text(String), bytes([UInt8]), null }
        var values: [Value] = []

        mutating func add(_ value: Int64) { values.append(.int(value)) }
        mutating func add(_ value: Int64?) { values.append(value.map(Value.int) ?? .null) }
        mutating func add(_ value: Int32) { values.append(.int(Int64(value))) }
        mutating func add(_ value: Int32?) { values.append(value.map { .int(Int64($0)) } ?? .null) }
        mutating func add(_ value: Bool) { values.append(.int(value ? 1 : 0)) }
        mutating func add(code value: Int) { values.append(.int(Int64(value))) }
        mutating func add(text: String) { values.append(.text(text)) }
        mutating func add(text: String?) { values.append(text.map(Value.text) ?? .null) }
        mutating func add(utf8 text: String) { values.append(.bytes(Array(text.utf8))) }
        mutating func add(_ bytes: [UInt8]) { values.append(.bytes(bytes)) }
        mutating func add(_ bytes: [UInt8]?) { values.append(bytes.map(Value.bytes) ?? .null) }

        private func value(_ index: Int) throws(StoredRowError) -> Value {
            guard values.indices.contains(index) else { throw StoredRowError(index: index, expected: "a value") }
            return values[index]
        }

        func optionalInt64(at index: Int) throws(StoredRowError) -> Int64? {
            switch try value(index) {
            case let .int(value): value
            case .null: nil
            default: throw StoredRowError(index: index, expected: "an integer")
            }
        }

        func optionalText(at index: Int) throws(StoredRowError) -> String? {
            switch try value(index) {
            case let .text(text): text
            case .null: nil
            default: throw StoredRowError(index: index, expected: "text")
            }
        }

        func optionalBytes(at index: Int) throws(StoredRowError) -> [UInt8]? {
            switch try value(index) {
            case let .bytes(bytes): bytes
            case .null: nil
            default: throw StoredRowError(index: index, expected: "bytes")
            }
        }

    }

    static func roundTrip<Record: StoredRecord & Equatable>(_ record: Record) throws -> Record {
        var cells = Cells()
        record.encode(to: &cells)
        #expect(cells.values.count == Record.Column.allCases.count, "\(Record.self) writes one value per column")
        return try cells.record(Record.self)
    }

    @Test func everyRecordReadsBackWhatItWrote() throws {
        let user = UserRecord(id: 7, accessHash: -3, phone: "+1555", firstName: "A\u{0}b", lastName: "€", username: nil, homeDC: 2, isBot: true,
                              about: "bio", blockedCount: 3)
        #expect(try Self.roundTrip(user) == user)
        let state = UserState(pts: 1, qts: 2, seq: 3, date: 4, nextMessageID: 5)
        #expect(try Self.roundTrip(state) == state)
        let event = StoredEvent(pts: 9, ptsCount: 1, date: 10, update: [1, 2, 3])
        #expect(try Self.roundTrip(event) == event)
        for message in [
            StoredMessage(owner: 1, id: 2, peer: .chat(5), fromID: 3, out: true, date: 4, text: "hi\u{0}there", entities: [9],
                          editDate: 6, counterpartID: 7, action: [8], replyTo: 3, pinned: true, forward: [1, 2]),
            StoredMessage(owner: 1, id: 2, peer: .channel(5), fromID: nil, out: false, date: 4, text: "", entities: [], editDate: nil,
                          counterpartID: nil, action: nil),
        ] {
            #expect(try Self.roundTrip(message) == message)
        }
        let dialog = DialogRecord(owner: 1, peer: .user(2), topMessage: 3, topDate: 4, readInboxMaxID: 5, readOutboxMaxID: 6, unreadCount: 7)
        #expect(try Self.roundTrip(dialog) == dialog)
        #expect(try Self.roundTrip(SentRecord(messageID: 1, pts: 2, date: 3, channelID: 4)) == SentRecord(messageID: 1, pts: 2, date: 3, channelID: 4))
        #expect(try Self.roundTrip(SentRecord(messageID: 1, pts: 2, date: 3)) == SentRecord(messageID: 1, pts: 2, date: 3))
        let channel = ChannelRecord(id: 1, accessHash: 2, title: "t", about: "a", username: "u", broadcast: true, creatorID: 3, date: 4)
        #expect(try Self.roundTrip(channel) == channel)
        let member = ChannelMember(channelID: 1, userID: 2, role: .admin, date: 3, readInboxMaxID: 4)
        #expect(try Self.roundTrip(member) == member)
        let post = ChannelMessage(channelID: 1, id: 2, fromID: 3, date: 4, text: "p", entities: [1], editDate: nil, action: [], forward: [5])
        #expect(try Self.roundTrip(post) == post)
        #expect(try Self.roundTrip(ChatRecord(id: 1, title: "g", creatorID: 2, date: 3, version: 4)) == ChatRecord(id: 1, title: "g", creatorID: 2, date: 3, version: 4))
        #expect(try Self.roundTrip(ChatMember(chatID: 1, userID: 2, inviterID: 3, date: 4)) == ChatMember(chatID: 1, userID: 2, inviterID: 3, date: 4))
        let contact = ContactRecord(owner: 1, userID: 2, firstName: "Ann", lastName: "Ö", phone: "15550002", date: 3)
        #expect(try Self.roundTrip(contact) == contact)
        #expect(try Self.roundTrip(BlockRecord(owner: 1, userID: 2, date: 3)) == BlockRecord(owner: 1, userID: 2, date: 3))
    }

    @Test func aShortOrMistypedRowIsATypedError() {
        var cells = Cells()
        ChatMember(chatID: 1, userID: 2, inviterID: 3, date: 4).encode(to: &cells)
        #expect(throws: StoredRowError.self) { try cells.record(ChatRecord.self) }   // text expected where an id is
        cells.values.removeLast()
        #expect(throws: StoredRowError.self) { try cells.record(ChatMember.self) }   // one column short
    }

    /// A row damaged behind the server's back (a cell of another storage class: text or bytes where a counter or an id belongs) makes the read
    /// that meets it throw; the server keeps serving everything else.
    @Test func aDamagedSQLiteRowThrowsAndTheRestIsServed() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("codec-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let path = directory.path + "/server.sqlite"
        let storage = try SQLiteServerStorage(path: path)
        try await storage.write { tx in
            try tx.upsert(ChannelRecord(id: 1, accessHash: 1, title: "damaged", broadcast: true, creatorID: 1, date: 1))
            try tx.upsert(ChannelRecord(id: 2, accessHash: 2, title: "fine", broadcast: true, creatorID: 1, date: 1))
            try tx.upsert(ChatRecord(id: 3, title: "group", creatorID: 1, date: 1))
        }
        let damage = try DatabaseQueue(path: path)
        try await damage.write { db in
            try db.execute(sql: "UPDATE channels SET pts = 'not a number' WHERE id = 1")
            try db.execute(sql: "UPDATE chats SET creator_id = x'00' WHERE id = 3")
        }
        try damage.close()
        await #expect(throws: StoredRowError.self) { try await storage.read { try $0.channel(id: 1) } }
        await #expect(throws: StoredRowError.self) { try await storage.read { try $0.chat(id: 3) } }
        #expect(try await storage.read { try $0.channel(id: 2) }?.title == "fine")
    }
}
