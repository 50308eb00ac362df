import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

private func userValues(_ users: [API.User]) -> [Int64: API.User.User] {
    var found: [Int64: API.User.User] = [:]
    for case let .user(value) in users { found[value.id] = value }
    return found
}

/// The users of a push, by id, whatever container carried them.
private func pushedUsers(_ updates: API.Updates) -> [Int64: API.User.User] {
    switch updates {
    case let .updates(value): userValues(value.users)
    case let .updatesCombined(value): userValues(value.users)
    default: [:]
    }
}

/// How `viewer` was shown Bob: as a contact under "Robert", or as nobody's contact under his own name.
private func expectBob(_ bob: API.User.User?, asContact: Bool, _ comment: String, sourceLocation: SourceLocation = #_sourceLocation) {
    #expect(bob?.contact == asContact, "\(comment): \(String(describing: bob))", sourceLocation: sourceLocation)
    #expect(bob?.firstName == (asContact ? "Robert" : "Bob"), "\(comment): \(String(describing: bob))", sourceLocation: sourceLocation)
}

/// Every user an answer or a push names is rendered as the viewer sees them — `contact`, the saved name — as Telegram
/// does and as clients rely on (TDLib takes a contact's state from any full user object): a message from a contact
/// must not take them off the viewer's contacts.
@Suite(.timeLimit(.minutes(2)))
struct ContactLinkRenderingTests {
    @Test(arguments: StorageBackend.all) func everyUserIsRenderedAsTheViewerSeesThem(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let carol = try await harness.loggedIn(carolPhone)
        let before = try await state(of: alice)
        guard case let .inputPeerUser(bobPeer) = try await inputUser(1002, in: alice) else { Issue.record("no Bob"); return }
        _ = try await alice.call(API.functions.contacts.AddContact(
            id: .inputUser(.init(userId: 1002, accessHash: bobPeer.accessHash)), firstName: "Robert", lastName: "", phone: ""))
        _ = try await alice.nextPush()                              // her own contact change, with its seq

        // A private message that needs its users (entities): pushed with Bob as Alice's contact.
        _ = try await bob.call(API.functions.messages.SendMessage(peer: try await inputUser(1001, in: bob), message: "hello",
                                                                  randomId: .random(in: 1...Int64.max),
                                                                  entities: [.messageEntityBold(.init(offset: 0, length: 5))]))
        expectBob(pushedUsers(try await alice.nextPush())[1002], asContact: true, "private push")

        // A supergroup post by Bob: Alice sees her contact, Carol sees Bob.
        let lounge = try await inputChannel("lounge", in: bob)
        try await post("in the lounge", to: lounge, from: bob)
        expectBob(pushedUsers(try await alice.nextPush())[1002], asContact: true, "channel push to Alice")
        expectBob(pushedUsers(try await carol.nextPush())[1002], asContact: false, "channel push to Carol")

        // Answers: history, dialogs, a difference, a channel's history.
        guard case let .messages(history) = try await alice.call(API.functions.messages.GetHistory(
            peer: try await inputUser(1002, in: alice), offsetId: 0, offsetDate: 0, addOffset: 0, limit: 10, maxId: 0, minId: 0, hash: 0))
        else { Issue.record("no history"); return }
        expectBob(userValues(history.users)[1002], asContact: true, "history")
        let dialogs = try await alice.call(API.functions.messages.GetDialogs(offsetDate: 0, offsetId: 0, offsetPeer: .inputPeerEmpty(.init()),
                                                                            limit: 20, hash: 0))
        switch dialogs {
        case let .dialogs(value): expectBob(userValues(value.users)[1002], asContact: true, "dialogs")
        case let .dialogsSlice(value): expectBob(userValues(value.users)[1002], asContact: true, "dialogs")
        default: Issue.record("no dialogs")
        }
        switch try await alice.call(API.functions.updates.GetDifference(pts: before.pts, date: before.date, qts: 0)) {
        case let .difference(value): expectBob(userValues(value.users)[1002], asContact: true, "difference")
        case let .differenceSlice(value): expectBob(userValues(value.users)[1002], asContact: true, "difference")
        default: Issue.record("no difference")
        }
        let channelHistory = try await alice.call(API.functions.messages.GetHistory(
            peer: peer(lounge), offsetId: 0, offsetDate: 0, addOffset: 0, limit: 10, maxId: 0, minId: 0, hash: 0))
        guard case let .channelMessages(posts) = channelHistory else { Issue.record("no channel history"); return }
        expectBob(userValues(posts.users)[1002], asContact: true, "channel history")

        // Bob's rename reaches Alice with her saved name still on the user object (the update carries his own name).
        _ = try await bob.call(API.functions.account.UpdateProfile(firstName: "Bobby"))
        var renamed: API.Updates?
        while renamed == nil {
            let push = try await alice.nextPush()
            if case let .updates(value) = push, value.updates.contains(where: { $0.constructorName == "updateUserName" }) { renamed = push }
        }
        expectBob(renamed.map(pushedUsers)?[1002], asContact: true, "rename")
        for client in [alice, bob, carol] { await client.close() }
        try await harness.stop()
    }
}
