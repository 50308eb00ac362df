import ArgumentParser
import Foundation
import MTProtoNIO
import Postbox
import SyncEngine
import SyncServer
import SyncHarness
import TL

/// `synccore debug client-sends`: Alice (a seeded account) sends Bob messages "m OFFSET" … "m OFFSET+COUNT-1", 8 in
/// flight, through a running `synccore server` (its key read from its data directory).
struct ClientSends: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "client-sends", abstract: "Alice sends Bob numbered messages.")
    @Option var port: Int
    @Option(help: "The server's data directory (its RSA key).") var data: String
    @Option var offset = 0
    @Option var count = 100

    func run() async throws {
        let key = try RunningServerKey.publicKey(data: data)
        let alice = try await TestClient(port: port, publicKey: key)
        try await alice.login(phone: "+15550001")
        // Seeded users' access hashes are fixed by the seed (0x5EED_0000 + index); Bob is 1002.
        let bob = API.InputPeer.inputPeerUser(.init(userId: 1002, accessHash: 0x5EED_0001))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for lane in 0..<8 {
                group.addTask { [offset, count] in
                    for index in stride(from: offset + lane, to: offset + count, by: 8) {
                        _ = try await alice.connection.call(API.functions.messages.SendMessage(
                            peer: bob, message: "m \(index)", randomId: Int64(index + 1)))
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

/// `synccore debug client-catch-up`: Bob's `Account` in DIR (logged in on first use) syncs until its committed state
/// equals the server's, then exits; the crash test kills it with SIGKILL at random points. With `--expect N` it then
/// checks the store: exactly N messages from Alice, every text once, every id once, the cursor at the server's pts.
struct ClientCatchUp: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "client-catch-up", abstract: "Bob's account catches up, then exits.")
    @Option var port: Int
    @Option(help: "The server's data directory (its RSA key).") var data: String
    @Option(help: "Bob's account directory.") var dir: String
    @Option(help: "Check that exactly this many messages from Alice are stored.") var expect: Int?

    func run() async throws {
        let key = try RunningServerKey.publicKey(data: data)
        let account = try await Account.open(Account.Configuration(directory: dir, addresses: .loopback([2: port]), publicKeys: [key]))
        if await !account.isLoggedIn {
            let hash = try await account.requestCode(phone: "+15550002")
            try await account.signIn(phone: "+15550002", code: "12345", codeHash: hash)
        }
        guard case let .state(server) = try await account.network.send(API.functions.updates.GetState()) else {
            throw ValidationError("no state from the server")
        }
        let deadline = ContinuousClock.now + .seconds(60)
        while (await account.syncState?.pts ?? 0) < server.pts {
            guard ContinuousClock.now < deadline else { throw ValidationError("not caught up to pts \(server.pts) within 60 s") }
            try await Task.sleep(for: .milliseconds(5))
        }
        let chat = StoreMapping.user(1001)
        let stored = try await account.postbox.read { transaction in
            (try transaction.allMessages(peer: chat, namespace: 0),
             try transaction.cursor.flatMap(StoreMapping.state(fromCursor:)))
        }
        await account.close()
        let (messages, cursor) = stored
        let texts = Set(messages.map(\.text)), ids = Set(messages.map(\.id))
        print("\(messages.count) messages from Alice (\(texts.count) distinct texts, \(ids.count) distinct ids), cursor pts \(cursor?.pts ?? 0), server pts \(server.pts)")
        guard let expect else { return }
        guard messages.count == expect, texts.count == expect, ids.count == expect, cursor?.pts == server.pts,
              texts == Set((0..<expect).map { "m \($0)" }) else {
            throw ValidationError("the store does not match the server (expected \(expect) messages m 0…m \(expect - 1))")
        }
    }
}

/// `synccore debug client-changes`: Alice's `Account` in DIR makes one account change of each kind through the
/// operation log, for the outbox crash test. `--phase login` logs in, stores Bob and Carol and sends Bob a message;
/// `--phase queue` (the server stopped) pins that message, pins the chat, saves a draft, mutes it, adds Carol as a
/// contact, blocks her and renames Alice, prints what the store shows as one JSON line, then waits to be killed;
/// `--phase drain` (the server back) waits until the log is empty and prints the store again.
struct ClientChanges: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "client-changes", abstract: "Alice's account changes, queued offline.")
    @Option var port: Int
    @Option(help: "The server's data directory (its RSA key).") var data: String
    @Option(help: "Alice's account directory.") var dir: String
    @Option(help: "login, queue or drain.") var phase: String

    func run() async throws {
        let key = try RunningServerKey.publicKey(data: data)
        let account = try await Account.open(Account.Configuration(directory: dir, addresses: .loopback([2: port]), publicKeys: [key]))
        let bob = StoreMapping.user(1002), carol = StoreMapping.user(1003)
        switch phase {
        case "login":
            let hash = try await account.requestCode(phone: "+15550001")
            try await account.signIn(phone: "+15550001", code: "12345", codeHash: hash)
            _ = try await account.resolve(username: "bob")
            _ = try await account.resolve(username: "carol")
            try await account.send("pin me", to: bob)
            try await waitForEmptyLog(account)
        case "queue":
            let pinned = try await account.postbox.read { try $0.latestMessages(peer: bob, namespace: StoreMapping.cloudMessages, limit: 1) }
            guard let message = pinned.first else { throw ValidationError("no message to pin") }
            try await account.pin(message.id.id, in: bob)
            try await account.pinChat(bob)
            try await account.saveDraft("draft while offline", in: bob)
            try await account.setNotificationSettings(NotificationSettings(muteUntil: Int32.max), for: bob)
            try await account.addContact(carol, firstName: "Caroline")
            try await account.block(carol)
            try await account.setProfile(firstName: "Alicia")
            try await printStore(account)
            while true { try await Task.sleep(for: .seconds(60)) }   // killed here
        case "drain":
            try await waitForEmptyLog(account)
            try await printStore(account)
        default:
            throw ValidationError("--phase is login, queue or drain")
        }
        await account.close()
    }

    private func waitForEmptyLog(_ account: Account) async throws {
        let deadline = ContinuousClock.now + .seconds(60)
        while try await account.pendingOperationCount > 0 {
            guard ContinuousClock.now < deadline else { throw ValidationError("the operation log did not empty within 60 s") }
            try await Task.sleep(for: .milliseconds(20))
        }
        try await account.synced()
    }

    /// What the store shows of each change, as one JSON line.
    private func printStore(_ account: Account) async throws {
        let bob = StoreMapping.user(1002), carol = StoreMapping.user(1003), alice = StoreMapping.user(1001)
        let pending = try await account.pendingOperationCount   // the log holds only the changes here
        let data: Data = try await account.postbox.read { transaction in
            let pinned = try transaction.messages(peer: bob, namespace: StoreMapping.cloudMessages, from: StoreMapping.newestIndex(in: bob),
                                                  direction: .older, limit: 10, tag: StoreMapping.pinnedTag)
            let name: String = if case let .user(user)? = try transaction.peer(alice) { user.firstName } else { "" }
            let shown = ["pinned_messages": pinned.map { Int($0.id.id) },
                    "pinned_chats": try transaction.pinnedChats().map { Int($0.id) },
                    "draft": try transaction.draft(bob)?.text ?? "",
                    "mute_until": Int(try transaction.notificationSettings(bob)?.muteUntil ?? 0),
                    "contacts": try transaction.contacts().map(\.firstName),
                    "blocked": try transaction.blockedPeers().contains(carol),
                    "first_name": name,
                    "pending": pending] as [String: Any]
            return try JSONSerialization.data(withJSONObject: shown, options: [.sortedKeys])
        }
        print(String(decoding: data, as: UTF8.self))
        fflush(nil)   // read before the process is killed
    }
}
