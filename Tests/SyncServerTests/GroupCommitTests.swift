import Foundation
import MTProto
import Testing
@testable import SyncServer

/// Concurrent writes share commits but stay separate: each sees the ones before it, and one that fails leaves
/// no trace while the others in its batch are kept.
struct GroupCommitTests {
    @Test func concurrentWritesCommitTogetherAndFailAlone() async throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let storage = try SQLiteServerStorage(path: directory.path + "/server.sqlite")
        let outcomes = await withTaskGroup(of: (Int, Bool).self) { group in
            for index in 0..<200 {
                group.addTask {
                    do {
                        try await storage.write { tx in
                            try tx.insert(UserRecord(id: Int64(index + 1), accessHash: 1, phone: "1\(index)", firstName: "U", homeDC: 1))
                            // Read back inside the job: a job that then fails must not leave its user in the cache.
                            _ = try tx.user(id: Int64(index + 1))
                            _ = try tx.user(id: Int64(index))
                            // Every write sees the state the earlier ones left: the box counter goes up one by one.
                            var box = try UserBox(user: 0, tx: tx)
                            _ = box.takeMessageID()
                            try box.save()
                            if index % 50 == 7 { throw RPCError.badRequest("REFUSED") }
                        }
                        return (index, true)
                    } catch {
                        return (index, false)
                    }
                }
            }
            return await group.reduce(into: [Int: Bool]()) { $0[$1.0] = $1.1 }
        }
        #expect(outcomes.filter { !$0.value }.keys.sorted() == [7, 57, 107, 157])
        let (users, next) = try await storage.read { tx in
            (try (1...200).filter { try tx.user(id: Int64($0)) != nil }.count, try tx.state(user: 0).nextMessageID)
        }
        #expect(users == 196)
        #expect(next == 197)   // 196 kept increments from 1
        // The same through write transactions (which consult the user cache first).
        let cachedOrNot = try await storage.write { tx in try (1...200).filter { try tx.user(id: Int64($0)) != nil }.count }
        #expect(cachedOrNot == 196)
    }

    /// Box states are written once per batch (`WriteBatch`); a write that moved a counter and then failed without
    /// touching a row must still leave no trace.
    @Test func aFailedWriteLeavesNoBoxStateChange() async throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let storage = try SQLiteServerStorage(path: directory.path + "/server.sqlite")
        let failures = await withTaskGroup(of: Bool.self) { group in
            for index in 0..<100 {
                group.addTask {
                    do {
                        try await storage.write { tx in
                            var box = try UserBox(user: 5, tx: tx)
                            _ = box.takeMessageID()
                            try box.save()
                            if index % 10 == 3 { throw RPCError.badRequest("REFUSED") }
                        }
                        return false
                    } catch {
                        return true
                    }
                }
            }
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(failures == 10)
        let next = try await storage.read { tx in try tx.state(user: 5).nextMessageID }
        #expect(next == 91)   // 90 kept increments from 1
    }

    /// Raised dialogs wait in memory until the batch ends (`WriteBatch`); a failed write's raises are undone, also
    /// when a dialog read in that write had already written them.
    @Test func aFailedWriteLeavesNoDialogRaise() async throws {
        let directory = try ScratchDirectory()
        defer { directory.remove() }
        let storage = try SQLiteServerStorage(path: directory.path + "/server.sqlite")
        let failed = await withTaskGroup(of: Int32?.self) { group in
            for index in 1...100 {
                group.addTask {
                    do {
                        try await storage.write { tx in
                            // Every tenth raises another dialog, reads it (which writes every pending raise of the
                            // batch) and fails: the earlier writes' raises must survive its rollback.
                            let peer = PeerRef.user(index % 10 == 0 ? 3 : 2)
                            try tx.raiseDialog(owner: 1, peer: peer, topMessage: Int32(index), date: Int32(index), unread: 1,
                                               readInboxTo: 0)
                            if index % 10 == 0 {
                                #expect(try tx.dialog(owner: 1, peer: peer) != nil)
                                throw RPCError.badRequest("REFUSED")
                            }
                            if index % 10 == 5 { throw RPCError.badRequest("REFUSED") }
                        }
                        return nil
                    } catch {
                        return Int32(index)
                    }
                }
            }
            return await group.reduce(into: Set<Int32>()) { if let index = $1 { $0.insert(index) } }
        }
        #expect(failed.count == 20)
        let dialog = try #require(try await storage.read { tx in try tx.dialog(owner: 1, peer: .user(2)) })
        #expect(dialog.unreadCount == 80)
        #expect(dialog.topMessage == 99)
        #expect(dialog.topDate == 99)
        #expect(try await storage.read { tx in try tx.dialog(owner: 1, peer: .user(3)) } == nil)
    }
}

/// A new empty directory for a test's files; `remove()` it when done (a `defer` right after creating it).
struct ScratchDirectory {
    let path = ServerKeysTests.temporaryDirectory()

    init() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
