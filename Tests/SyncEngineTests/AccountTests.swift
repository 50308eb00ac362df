import Foundation
import Logging
import MTProtoNIO
import Postbox
import SyncServer
import SyncTesting
import Testing
import TL
@testable import SyncEngine

/// The `Account` an app embeds, from an empty directory to a restart: log in by code, resolve a username, send, see
/// it arrive in the other account's live history view, mark it read (the sender's outbox read state follows),
/// close, and reopen logged in with everything still there.
@Suite(.timeLimit(.minutes(2)))
struct AccountTests {
    static func configuration(_ directory: String, _ server: SyncServer) -> Account.Configuration {
        Account.Configuration(directory: directory, addresses: .loopback(server.ports), publicKeys: [server.keys.rsaKey.publicKey])
    }

    static func logIn(_ phone: String, _ directory: String, _ server: SyncServer) async throws -> Account {
        let account = try await Account.open(configuration(directory, server))
        let hash = try await account.requestCode(phone: phone)
        try await account.signIn(phone: phone, code: "12345", codeHash: hash)
        return account
    }

    /// A server with the development accounts and Alice and Bob logged in, each in a directory of its own; everything
    /// is closed and removed after `body`.
    static func withAliceAndBob(_ name: String, _ body: (_ alice: Account, _ bob: Account) async throws -> Void) async throws {
        try await withServer(name) { server, root in
            let alice = try await Self.logIn(TestWorld.alicePhone, root + "/alice", server)
            let bob = try await Self.logIn(TestWorld.bobPhone, root + "/bob", server)
            do {
                try await body(alice, bob)
            } catch {
                await bob.close(); await alice.close()
                throw error
            }
            await bob.close()
            await alice.close()
        }
    }

    /// A server with the development accounts in a directory `root` of its own (accounts go beside it), stopped and
    /// removed after `body`.
    static func withServer(_ name: String, _ body: (_ server: SyncServer, _ root: String) async throws -> Void) async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try await SyncServer.start(SyncServerConfiguration(
            port: 0, dc: 2, dataDirectory: root + "/server", loginCode: "12345", seedDevAccounts: true, sendsPerSecond: 0,
            initialRSAKey: TestServerKey.key),
            logger: Logger(label: "test"))
        do {
            try await body(server, root)
        } catch {
            try await server.stop()
            throw error
        }
        try await server.stop()
    }

    @Test func logInSendReadAndReopen() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("account-api-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try await SyncServer.start(SyncServerConfiguration(
            port: 0, dc: 2, dataDirectory: root + "/server", loginCode: "12345", seedDevAccounts: true, sendsPerSecond: 0,
            initialRSAKey: TestServerKey.key),
            logger: Logger(label: "test"))
        let alice = try await Self.logIn(TestWorld.alicePhone, root + "/alice", server)
        var bob = try await Self.logIn(TestWorld.bobPhone, root + "/bob", server)
        let (aliceIn, bobIn) = (await alice.isLoggedIn, await bob.isLoggedIn)
        #expect(aliceIn && bobIn)
        let aliceID = try #require(await alice.user?.id)

        let bobPeer = try await alice.resolve(username: "bob")
        let aliceChat = StoreMapping.user(aliceID)
        var view = bob.history(aliceChat, count: 10).makeAsyncIterator()
        _ = try await view.next()
        try await alice.send("hello from the Account API", to: bobPeer)
        var shown: Message?
        while shown == nil, let update = try await view.next() { shown = update.snapshot.messages.last }
        #expect(shown?.text == "hello from the Account API")

        // Bob reads it: his unread count drops at once, and Alice's store learns it through updateReadHistoryOutbox.
        try await bob.markRead(aliceChat, upTo: try #require(shown?.id.id))
        let bobRead = try await bob.postbox.read { try $0.readState(aliceChat, namespace: 0) }
        #expect(bobRead.unreadCount == 0)
        #expect(try await TestWorld.eventually {
            try await alice.postbox.read { try $0.readState(bobPeer, namespace: 0) }.maxOutgoingReadID >= 1
        })
        var chatList = bob.chatList().makeAsyncIterator()
        let chats = try await chatList.next()
        #expect(chats?.snapshot.contains { $0.peer == aliceChat } == true)

        // Bob closes the app and opens it again: logged in from the directory, and still syncing.
        await bob.close()
        bob = try await Account.open(Self.configuration(root + "/bob", server))
        #expect(await bob.isLoggedIn)
        try await alice.send("after the restart", to: bobPeer)
        #expect(try await TestWorld.eventually {
            try await TestWorld.messages(in: bob.postbox, with: aliceID).map(\.text) == ["hello from the Account API", "after the restart"]
        })
        await bob.close()
        await alice.close()
        try await server.stop()
    }

    /// A reply through the Account API: shown at once as an unsent reply, and in both stores as a reply to each side's
    /// own copy of the message (the two boxes number it differently).
    /// A sign-in whose answer was lost to a reconnect is sent again and meets its own used code (`PHONE_CODE_EXPIRED`):
    /// the account finds its key signed in and is logged in. A code that was never good is still refused.
    @Test func aSignInSentAgainAfterItsAnswerWasLostStillSignsIn() async throws {
        try await Self.withServer("account-signin-again") { server, root in
            let alice = try await Account.open(Self.configuration(root + "/alice", server))
            let hash = try await alice.requestCode(phone: TestWorld.alicePhone)
            // The first sign-in reaches the server; the app never sees its answer.
            _ = try await alice.network.send(API.functions.auth.SignIn(phoneNumber: TestWorld.alicePhone, phoneCodeHash: hash,
                                                                       phoneCode: "12345"))
            let user = try await alice.signIn(phone: TestWorld.alicePhone, code: "12345", codeHash: hash)
            #expect(user.id == 1001)
            #expect(await alice.isLoggedIn)
            await alice.close()

            let bob = try await Account.open(Self.configuration(root + "/bob", server))
            do {
                try await bob.signIn(phone: TestWorld.bobPhone, code: "12345", codeHash: "never-sent")
                Issue.record("a code never sent signed in")
            } catch let MTProtoClientError.rpc(refusal) {
                #expect(refusal.message == "PHONE_CODE_EXPIRED")
            }
            #expect(await !bob.isLoggedIn)
            await bob.close()
        }
    }

    @Test func aReplyIsStoredAsAReplyOnBothSides() async throws {
        try await Self.withAliceAndBob("account-reply") { alice, bob in
            let (aliceID, bobID) = (try #require(await alice.user?.id), try #require(await bob.user?.id))
            let bobPeer = try await alice.resolve(username: "bob")
            try await alice.send("a note to myself first", to: StoreMapping.user(aliceID))
            try await alice.send("lunch?", to: bobPeer)
            var question: Message?
            #expect(try await TestWorld.eventually {
                question = try await TestWorld.messages(in: bob.postbox, with: aliceID).first { $0.text == "lunch?" }
                return question != nil
            })
            let asked = try #require(question)
            let local = try await bob.send("yes", to: StoreMapping.user(aliceID), replyTo: asked.id.id).local
            #expect(try #require(try await bob.postbox.read { try $0.message(local) }).reply?.messageID == asked.id.id)
            // Alice's own copy is stored once her outbox's send is answered.
            var stored: Message?
            #expect(try await TestWorld.eventually {
                stored = try await TestWorld.messages(in: alice.postbox, with: bobID).first { $0.text == "lunch?" }
                return stored != nil
            })
            let aliceCopy = try #require(stored)
            #expect(aliceCopy.id.id != asked.id.id)
            #expect(try await TestWorld.eventually {
                let answer = try await TestWorld.messages(in: alice.postbox, with: bobID).first { $0.text == "yes" }
                return answer?.reply?.messageID == aliceCopy.id.id
            })
            #expect(try await TestWorld.eventually {
                let answer = try await TestWorld.messages(in: bob.postbox, with: aliceID).first { $0.text == "yes" && $0.id.namespace == 0 }
                return answer?.reply?.messageID == asked.id.id
            })
        }
    }

    /// A pin through the Account API reaches the other side's store: the message is in its pinned-messages view, with
    /// the "pinned" service message replying to it; an unpin empties the view.
    @Test func aPinReachesTheOtherStoresPinnedView() async throws {
        try await Self.withAliceAndBob("account-pin") { alice, bob in
            let aliceID = try #require(await alice.user?.id)
            let bobPeer = try await alice.resolve(username: "bob")
            try await alice.send("the address", to: bobPeer)
            var stored: Message?
            #expect(try await TestWorld.eventually {
                stored = try await TestWorld.messages(in: alice.postbox, with: bobPeer.id).first { $0.text == "the address" }
                return stored != nil
            })
            let mine = try #require(stored)
            var pinnedAtBob = bob.pinnedMessages(StoreMapping.user(aliceID)).makeAsyncIterator()
            _ = try await pinnedAtBob.next()
            try await alice.pin(mine.id.id, in: bobPeer)
            var shown: [Message] = []
            while shown.isEmpty, let update = try await pinnedAtBob.next() { shown = update.snapshot.messages }
            #expect(shown.map(\.text) == ["the address"])
            let theirs = try #require(shown.first)
            #expect(try await TestWorld.eventually {
                try await TestWorld.messages(in: bob.postbox, with: aliceID).contains { $0.text.isEmpty && $0.reply?.messageID == theirs.id.id }
            })
            try await alice.pin(mine.id.id, in: bobPeer, unpin: true)
            while !shown.isEmpty, let update = try await pinnedAtBob.next() { shown = update.snapshot.messages }
            #expect(shown.isEmpty)
        }
    }

    /// `Account.unpinAll`: both stores' pinned views empty (the caller's from its own store change, the other's from
    /// the pushed update).
    @Test func unpinAllEmptiesBothPinnedViews() async throws {
        try await Self.withAliceAndBob("account-unpin-all") { alice, bob in
            let aliceID = try #require(await alice.user?.id)
            let bobPeer = try await alice.resolve(username: "bob")
            for text in ["first", "second"] { try await alice.send(text, to: bobPeer) }
            var mine: [Message] = []
            #expect(try await TestWorld.eventually {
                mine = try await TestWorld.messages(in: alice.postbox, with: bobPeer.id).filter { ["first", "second"].contains($0.text) }
                return mine.count == 2
            })
            for message in mine { try await alice.pin(message.id.id, in: bobPeer) }
            let pinnedCount = { (account: Account, peer: PeerID) async throws -> Int in
                var view = account.pinnedMessages(peer).makeAsyncIterator()
                return try await view.next()?.snapshot.messages.count ?? -1
            }
            #expect(try await TestWorld.eventually { try await pinnedCount(bob, StoreMapping.user(aliceID)) == 2 })
            #expect(try await TestWorld.eventually { try await pinnedCount(alice, bobPeer) == 2 })
            try await alice.synced()
            let before = await alice.differenceRequests
            try await alice.unpinAll(in: bobPeer)
            #expect(try await pinnedCount(alice, bobPeer) == 0)
            #expect(try await TestWorld.eventually { try await pinnedCount(bob, StoreMapping.user(aliceID)) == 0 })
            try await alice.synced()
            #expect(await alice.differenceRequests == before, "the unpin's counters follow on without a gap")
        }
    }

    /// `Account.deleteHistory` with `revoke`: both stores lose the chat's messages (the caller's by its own store
    /// change, the other's from the pushed deletion), with no gap.
    @Test func deleteHistoryWithRevokeEmptiesBothStores() async throws {
        try await Self.withAliceAndBob("account-delete-history") { alice, bob in
            let aliceID = try #require(await alice.user?.id)
            let bobPeer = try await alice.resolve(username: "bob")
            for text in ["first", "second", "third"] { try await alice.send(text, to: bobPeer) }
            #expect(try await TestWorld.eventually { try await TestWorld.messages(in: bob.postbox, with: aliceID).count == 3 })
            #expect(try await TestWorld.eventually { try await TestWorld.messages(in: alice.postbox, with: bobPeer.id).count == 3 })
            try await alice.synced()
            let before = await alice.differenceRequests
            try await alice.deleteHistory(bobPeer, revoke: true)
            #expect(try await TestWorld.messages(in: alice.postbox, with: bobPeer.id).isEmpty)
            #expect(try await TestWorld.eventually { try await TestWorld.messages(in: bob.postbox, with: aliceID).isEmpty })
            try await alice.synced()
            #expect(await alice.differenceRequests == before)
        }
    }
}
