import ArgumentParser
import Foundation
import GRDB
import Postbox

/// `synccore debug …`: tools for fault tests (not part of the user-facing CLI).
struct DebugCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "debug",
        abstract: "Tools for fault tests.",
        shouldDisplay: false,
        subcommands: [PostboxCrashWriter.self, PostboxCrashVerifier.self, PostboxStampWriter.self, ServerBurst.self, ServerBurstVerify.self,
                      ClientSends.self, ClientCatchUp.self, ClientChanges.self]
    )
}

/// The transaction stream the crash test kills: transaction n writes messages 10n+1…10n+10 to one peer, an
/// operation-log entry, and the cursor n, so a half-applied transaction is detectable.
enum CrashStream {
    static let peer = PeerID(namespace: 0, id: 1)
    static let perTransaction: Int32 = 10

    /// The debug tools' cursor: one big-endian Int64 (a transaction number or a nanosecond stamp).
    static func cursor(_ value: Int64) -> [UInt8] { withUnsafeBytes(of: value.bigEndian) { Array($0) } }
    static func value(_ cursor: [UInt8]) -> Int64 { cursor.prefix(8).reduce(0) { $0 << 8 | Int64($1) } }

    static func messages(_ n: Int32) -> [Message] {
        (1...perTransaction).map { i in
            Message(id: MessageID(peer: peer, namespace: 0, id: n * perTransaction + i), timestamp: n, flags: [.incoming],
                    text: "transaction \(n) message \(i)", attributes: Array(repeating: UInt8(truncatingIfNeeded: n), count: 64))
        }
    }
}

struct PostboxCrashWriter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "postbox-crash-writer",
                                                    abstract: "Commit the crash-test transaction stream until killed.")
    @Option var path: String

    func run() async throws {
        let postbox = try Postbox.open(at: path)
        var next = try await postbox.read { tx in try tx.cursor.map { Int32(CrashStream.value($0)) + 1 } ?? 0 }
        while true {
            let n = next
            _ = try await postbox.transaction { tx in
                try tx.addMessages(CrashStream.messages(n))
                try tx.appendOperation(peer: CrashStream.peer, tag: 1, contents: [UInt8(truncatingIfNeeded: n)])
                try tx.setCursor(CrashStream.cursor(Int64(n)))
            }
            next += 1
        }
    }
}

struct PostboxCrashVerifier: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "postbox-crash-verify",
                                                    abstract: "Check integrity and that every crash-test transaction is whole or absent.")
    @Option var path: String

    /// Whole or absent is checked by counts (ids are each table's key, so a count and the two ends show the stream
    /// has no gap) and by reading the newest transaction through Postbox: reading every message back through Postbox
    /// made each check O(history), and the 100 rounds took ten minutes as the file grew.
    func run() async throws {
        let queue = try DatabaseQueue(path: path)
        let integrity = try await queue.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
        guard integrity == ["ok"] else { throw ValidationError("integrity_check: \(integrity.joined(separator: "; "))") }
        let postbox = try Postbox.open(at: path)   // creates the tables when the writer was killed before it did
        let (stored, operations) = try await queue.read { db in
            (try Row.fetchOne(db, sql: "SELECT COUNT(*), COALESCE(MIN(id), 0), COALESCE(MAX(id), 0) FROM messages WHERE peer = ? AND namespace = 0",
                              arguments: [CrashStream.peer.rawValue]),
             try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM operation_log WHERE tag = 1") ?? 0)
        }
        try queue.close()
        let (count, lowest, highest): (Int, Int64, Int64) = (stored?[0] ?? 0, stored?[1] ?? 0, stored?[2] ?? 0)
        let (cursor, newest, unread) = try await postbox.read { tx -> (Int64?, [Message], Int32) in
            let last = MessageIndex(id: MessageID(peer: CrashStream.peer, namespace: 0, id: .max), timestamp: .max)
            return (try tx.cursor.map(CrashStream.value),
                    try tx.messages(peer: CrashStream.peer, namespace: 0, from: last, direction: .older, limit: Int(CrashStream.perTransaction)),
                    try tx.readState(CrashStream.peer, namespace: 0).unreadCount)
        }
        let committed = cursor.map { Int($0) + 1 } ?? 0
        let total = committed * Int(CrashStream.perTransaction)
        let newestWhole = committed == 0 ? newest.isEmpty
            : newest.map(\.text) == CrashStream.messages(Int32(committed - 1)).reversed().map(\.text)
        guard count == total, lowest == (total == 0 ? 0 : 1), highest == Int64(total), newestWhole, operations == committed,
              Int(unread) == count else {
            throw ValidationError("""
                torn state: cursor says \(committed) transactions, found \(count) messages (ids \(lowest)…\(highest)), \
                \(operations) operations, unread \(unread), newest transaction whole: \(newestWhole)
                """)
        }
        print("ok: \(committed) whole transactions")
    }
}

/// Commits `count` transactions whose cursor is the wall-clock time of the commit (ns): the other process measures
/// how long its views take to show each one.
struct PostboxStampWriter: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "postbox-stamp-writer",
                                                    abstract: "Commit transactions stamped with the wall-clock time.")
    @Option var path: String
    @Option var count = 200
    @Option var intervalMilliseconds = 15

    func run() async throws {
        let postbox = try Postbox.open(at: path)
        for index in 0..<count {
            _ = try await postbox.transaction { tx in
                try tx.updatePeer(.group(GroupPeer(id: CrashStream.peer, title: "stamp \(index)")))
                try tx.setCursor(CrashStream.cursor(Int64(Date().timeIntervalSince1970 * 1e9)))
            }
            try await Task.sleep(for: .milliseconds(intervalMilliseconds))
        }
        _ = try await postbox.transaction { tx in try tx.setCursor(CrashStream.cursor(-1)) }
    }
}
