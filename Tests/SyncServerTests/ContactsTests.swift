import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

private func userValue(_ user: API.User?) -> API.User.User? {
    if case let .user(value)? = user { value } else { nil }
}

private func users(of updates: API.Updates) -> [API.User.User] {
    if case let .updates(value) = updates { value.users.compactMap(userValue) } else { [] }
}

private func contactList(_ client: TestClient, hash: Int64 = 0) async throws -> API.contacts.Contacts {
    try await client.call(API.functions.contacts.GetContacts(hash: hash))
}

private func mutualFlags(_ contacts: API.contacts.Contacts) -> [Int64: Bool] {
    guard case let .contacts(value) = contacts else { return [:] }
    return Dictionary(uniqueKeysWithValues: value.contacts.map { contact in
        switch contact { case let .contact(entry): (entry.userId, entry.mutual) }
    })
}

/// The `updatePeerBlocked` of a sequenced push: its seq, the user and the flag.
private func blockPush(_ updates: API.Updates) -> (seq: Int32, user: Int64, blocked: Bool)? {
    guard case let .updates(value) = updates, value.updates.count == 1, case let .updatePeerBlocked(update) = value.updates[0],
          case let .peerUser(peer) = update.peerId else { return nil }
    return (value.seq, peer.userId, update.blocked)
}

/// The `updatePeerSettings` of a sequenced push: its seq, whether the add-contact bar is offered, and the user sent.
private func contactPush(_ updates: API.Updates) -> (seq: Int32, offersAdd: Bool, user: API.User.User?)? {
    guard case let .updates(value) = updates, value.updates.count == 1, case let .updatePeerSettings(update) = value.updates[0],
          case let .peerSettings(settings) = update.settings else { return nil }
    return (value.seq, settings.addContact, value.users.compactMap(userValue).first)
}

/// Contact lists and blocks on both backends: import by phone, add by id, the list with its hash and mutual flags,
/// the phone shown to contacts, deletion, search by saved name and username, and blocks — told to the blocker's
/// sessions with seq, listed, and keeping a blocked user's messages from the blocker.
@Suite(.timeLimit(.minutes(2)))
struct ContactsTests {
    /// core.telegram.org/api/offsets' hash, worked by hand: the saved count first, then the sorted ids, in unsigned
    /// 64-bit arithmetic (a negative id wraps).
    @Test func theListHashIsTelegramsFold() {
        #expect(ContactLists.hash(savedCount: 0, ids: [1002]) == 1002)
        #expect(ContactLists.hash(savedCount: 0, ids: [1003, 1002]) == 33_694_018_439_103)
        #expect(ContactLists.hash(savedCount: 5, ids: [-1]) == 182_536_110_084)
    }

    @Test(arguments: StorageBackend.all) func importAddListAndDeleteWithMutualFlags(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let carol = try await harness.loggedIn(carolPhone)

        guard case let .importedContacts(imported) = try await alice.call(API.functions.contacts.ImportContacts(contacts: [
            .inputPhoneContact(.init(clientId: 7, phone: "+1 555 0002", firstName: "Bobby", lastName: "")),
            .inputPhoneContact(.init(clientId: 8, phone: "+1 999 0000", firstName: "Nobody", lastName: "")),
            .inputPhoneContact(.init(clientId: 9, phone: alicePhone, firstName: "Me", lastName: "")),
        ])) else { Issue.record("no import"); return }
        let pairs = imported.imported.map { contact -> [Int64] in switch contact { case let .importedContact(value): [value.userId, value.clientId] } }
        #expect(pairs == [[1002, 7]])
        #expect(imported.retryContacts.isEmpty)
        let bobSeenByAlice = userValue(imported.users.first)
        #expect(bobSeenByAlice?.contact == true && bobSeenByAlice?.mutualContact == false && bobSeenByAlice?.phone == "15550002")
        #expect(bobSeenByAlice?.firstName == "Bobby", "a contact is shown by the name the viewer saved")

        // A list longer than one call imports names the rest for later, as Telegram's `retry_contacts`.
        let many = (0..<Int64(ContactLists.importedPerCall + 1)).map { index in
            API.InputContact.inputPhoneContact(.init(clientId: index, phone: "+1 777 \(index)", firstName: "N", lastName: ""))
        }
        guard case let .importedContacts(overflow) = try await carol.call(API.functions.contacts.ImportContacts(contacts: many)) else {
            Issue.record("no import"); return
        }
        #expect(overflow.imported.isEmpty && overflow.retryContacts == [Int64(ContactLists.importedPerCall)])

        let listed = try await contactList(alice)
        #expect(mutualFlags(listed) == [1002: false])
        let hash = ContactLists.hash(savedCount: 0, ids: [1002])
        guard case .contactsNotModified = try await contactList(alice, hash: hash) else { Issue.record("the list's hash"); return }
        #expect(mutualFlags(try await contactList(alice, hash: hash &+ 1)) == [1002: false])

        // Bob adds Alice by id: mutual for both now, and Bob sees her phone (she has him among her contacts).
        let added = users(of: try await bob.call(API.functions.contacts.AddContact(
            id: try await inputUserValue(1001, in: bob), firstName: "Al", lastName: "", phone: "")))
        #expect(added.map(\.id) == [1001] && added.first?.contact == true && added.first?.mutualContact == true)
        #expect(added.first?.phone == "15550001" && added.first?.firstName == "Al")
        #expect(mutualFlags(try await contactList(alice)) == [1002: true])
        #expect(mutualFlags(try await contactList(bob)) == [1001: true])
        let bobSeenByCarol = userValue(try await carol.call(API.functions.users.GetUsers(id: [try await inputUserValue(1002, in: carol)])).first)
        #expect(bobSeenByCarol?.contact == false && bobSeenByCarol?.phone == nil)

        await expectRPCError("CONTACT_ID_INVALID") {
            try await bob.call(API.functions.contacts.AddContact(id: .inputUserSelf(.init()), firstName: "Me", lastName: "", phone: ""))
        }
        await expectRPCError("CONTACT_NAME_EMPTY") {
            try await bob.call(API.functions.contacts.AddContact(id: try await inputUserValue(1003, in: bob), firstName: " ", lastName: "",
                                                                 phone: ""))
        }
        await expectRPCError("FIRSTNAME_INVALID") {
            try await bob.call(API.functions.contacts.AddContact(id: try await inputUserValue(1003, in: bob),
                                                                 firstName: String(repeating: "é", count: 65), lastName: "", phone: ""))
        }

        let deleted = users(of: try await alice.call(API.functions.contacts.DeleteContacts(id: [try await inputUserValue(1002, in: alice)])))
        #expect(deleted.map(\.id) == [1002] && deleted.first?.contact == false)
        #expect(mutualFlags(try await contactList(alice)).isEmpty)
        #expect(mutualFlags(try await contactList(bob)) == [1001: false])
        for client in [alice, bob, carol] { await client.close() }
        try await harness.stop()
    }

    @Test(arguments: StorageBackend.all) func searchFindsSavedNamesAndUsernames(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        _ = try await alice.call(API.functions.contacts.AddContact(id: try await inputUserValue(1002, in: alice), firstName: "Robert",
                                                                    lastName: "Paulson", phone: ""))
        func found(_ query: String, limit: Int32 = 10) async throws -> (mine: [Int64], others: [Int64]) {
            guard case let .found(found) = try await alice.call(API.functions.contacts.Search(q: query, limit: limit)) else { return ([], []) }
            let ids = { (peers: [API.Peer]) in peers.compactMap { if case let .peerUser(user) = $0 { user.userId } else { nil } } }
            return (ids(found.myResults), ids(found.results))
        }
        #expect(try await found("rob") == ([1002], []), "a saved first name, any case")
        #expect(try await found("PAUL") == ([1002], []), "a saved last name")
        #expect(try await found("bo") == ([1002], []), "a contact found by username is among my results")
        #expect(try await found("car") == ([], [1003]), "a username")
        #expect(try await found("@CA") == ([], [1003]))
        #expect(try await found("c_r%") == ([], []), "LIKE's wildcards are letters here")
        #expect(try await found("ali") == ([], []), "not oneself")
        #expect(try await found("carol", limit: 0) == ([], []))
        await expectRPCError("SEARCH_QUERY_EMPTY") { try await alice.call(API.functions.contacts.Search(q: " @", limit: 10)) }
        await alice.close()
        try await harness.stop()
    }

    @Test(arguments: StorageBackend.all) func blocksAreToldListedAndKeepMessagesAway(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let bobElsewhere = try await harness.loggedIn(bobPhone)
        let toBob = try await inputUser(1002, in: alice)
        _ = try await send("before", to: toBob, from: alice)
        for client in [bob, bobElsewhere] { _ = try await client.nextPush() }
        let bobBefore = try await state(of: bob)
        let aliceAtBob = try await inputUser(1001, in: bob)

        #expect(try await bob.call(API.functions.contacts.Block(id: aliceAtBob)))
        for client in [bob, bobElsewhere] {
            let push = blockPush(try await client.nextPush())
            #expect(push?.seq == 1 && push?.user == 1001 && push?.blocked == true, "\(String(describing: push))")
        }
        #expect(try await bob.call(API.functions.contacts.Block(id: aliceAtBob)), "blocked already: true, nothing told")
        guard case let .userFull(full) = try await bob.call(API.functions.users.GetFullUser(id: try await inputUserValue(1001, in: bob))),
              case let .userFull(details) = full.fullUser else { Issue.record("no full user"); return }
        #expect(details.blocked)

        // Alice's message is sent (her copy, her pts) but never reaches Bob: his next push is the unblock.
        let sent = try await send("while blocked", to: toBob, from: alice)
        #expect(sent.id > 0)
        #expect(try await historyMessages(alice, in: toBob).count == 2)
        #expect(try await historyMessages(bob, in: aliceAtBob).count == 1)
        #expect(try await bob.call(API.functions.contacts.Unblock(id: aliceAtBob)))
        let unblocked = blockPush(try await bob.nextPush())
        #expect(unblocked?.seq == 2 && unblocked?.blocked == false)
        _ = try await send("after", to: toBob, from: alice)
        guard case let .updateShortMessage(after) = try await bob.nextPush() else { Issue.record("no message after the unblock"); return }
        #expect(after.message == "after")

        // A difference from before the block tells both, with the state's seq.
        guard case let .difference(difference) = try await bob.call(API.functions.updates.GetDifference(
            pts: bobBefore.pts, date: bobBefore.date, qts: 0)) else { Issue.record("no difference"); return }
        let flags = difference.otherUpdates.compactMap { if case let .updatePeerBlocked(value) = $0 { value.blocked } else { nil } }
        #expect(flags == [true, false])
        if case let .state(final) = difference.state { #expect(final.seq == 2) }

        // The list, newest first, paged.
        _ = try await bob.call(API.functions.contacts.Block(id: aliceAtBob))
        _ = try await bob.call(API.functions.contacts.Block(id: try await inputUser(1003, in: bob)))
        guard case let .blockedSlice(page) = try await bob.call(API.functions.contacts.GetBlocked(offset: 0, limit: 1)) else {
            Issue.record("no slice"); return
        }
        #expect(page.count == 2 && page.blocked.count == 1 && page.users.count == 1)
        guard case let .blocked(all) = try await bob.call(API.functions.contacts.GetBlocked(offset: 0, limit: 100)) else {
            Issue.record("not the whole list"); return
        }
        let blockedIDs = all.blocked.compactMap { blocked -> Int64? in
            switch blocked { case let .peerBlocked(value): if case let .peerUser(user) = value.peerId { user.userId } else { nil } }
        }
        #expect(Set(blockedIDs) == [1001, 1003])
        await expectRPCError("CONTACT_ID_INVALID") { try await bob.call(API.functions.contacts.Block(id: .inputPeerSelf(.init()))) }
        await expectRPCError("STORIES_NOT_SUPPORTED") {
            try await bob.call(API.functions.contacts.GetBlocked(myStoriesFrom: true, offset: 0, limit: 10))
        }
        for client in [alice, bob, bobElsewhere] { await client.close() }
        try await harness.stop()
    }

    /// A contact added, renamed or removed reaches every session of the account as `updatePeerSettings` with seq and
    /// the user as a contact sees them (or no longer does); a removal of someone not on the list tells nothing; a
    /// difference lists the changes with the user's final flags and saved name.
    @Test(arguments: StorageBackend.all) func contactChangesAreToldWithSeq(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let aliceElsewhere = try await harness.loggedIn(alicePhone)
        let bob = try await harness.loggedIn(bobPhone)
        let before = try await state(of: aliceElsewhere)
        let bobAtAlice = try await inputUserValue(1002, in: alice)

        let answer = try await alice.call(API.functions.contacts.AddContact(id: bobAtAlice, firstName: "Robert", lastName: "B", phone: ""))
        #expect(contactPush(answer)?.offersAdd == false && contactPush(answer)?.user?.contact == true, "\(answer)")
        for client in [alice, aliceElsewhere] {
            let push = contactPush(try await client.nextPush())
            #expect(push?.seq == 1 && push?.offersAdd == false && push?.user?.id == 1002, "\(String(describing: push))")
            #expect(push?.user?.contact == true && push?.user?.firstName == "Robert" && push?.user?.lastName == "B")
        }
        _ = try await alice.call(API.functions.contacts.DeleteContacts(id: [bobAtAlice]))
        let removed = contactPush(try await aliceElsewhere.nextPush())
        #expect(removed?.seq == 2 && removed?.offersAdd == true && removed?.user?.contact == false && removed?.user?.firstName == "Bob",
                "\(String(describing: removed))")
        _ = try await alice.call(API.functions.contacts.DeleteContacts(id: [bobAtAlice]))   // not on the list: nothing told
        guard case let .importedContacts(imported) = try await alice.call(API.functions.contacts.ImportContacts(contacts: [
            .inputPhoneContact(.init(clientId: 1, phone: "+15550002", firstName: "Bobby", lastName: "")),
        ])) else { Issue.record("no import"); return }
        #expect(imported.imported.count == 1)
        let readded = contactPush(try await aliceElsewhere.nextPush())
        #expect(readded?.seq == 3 && readded?.user?.contact == true && readded?.user?.firstName == "Bobby", "\(String(describing: readded))")
        // The same entry imported again changes nothing and tells nothing (the difference below ends at seq 3).
        guard case let .importedContacts(again) = try await alice.call(API.functions.contacts.ImportContacts(contacts: [
            .inputPhoneContact(.init(clientId: 2, phone: "+15550002", firstName: "Bobby", lastName: "")),
        ])) else { Issue.record("no import"); return }
        #expect(again.imported.count == 1 && userValue(again.users.first)?.contact == true)

        guard case let .difference(difference) = try await aliceElsewhere.call(API.functions.updates.GetDifference(
            pts: before.pts, date: before.date, qts: 0)) else { Issue.record("no difference"); return }
        let offers = difference.otherUpdates.compactMap { update -> Bool? in
            guard case let .updatePeerSettings(value) = update, case let .peerSettings(settings) = value.settings else { return nil }
            return settings.addContact
        }
        #expect(offers == [false, true, false])
        let told = difference.users.compactMap(userValue).first { $0.id == 1002 }
        #expect(told?.contact == true && told?.firstName == "Bobby", "\(String(describing: told))")
        if case let .state(final) = difference.state { #expect(final.seq == 3) }
        for client in [alice, aliceElsewhere, bob] { await client.close() }
        try await harness.stop()
    }

    /// Each contact change is a seq event the user's box keeps: past the account-state rate (a burst of 100, then 10
    /// a second) changes are refused with FLOOD_WAIT_X before anything is written. 300 calls go out at once, so the
    /// bucket empties however slowly the machine answers them (they would have to spread over 20 s not to).
    @Test func contactChangesAreRateLimited() async throws {
        let harness = try await ServerHarness(backend: .sqlite)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await inputUserValue(1002, in: alice)
        let refusals = await withTaskGroup(of: String?.self) { group in
            for index in 0..<300 {
                group.addTask {
                    do {
                        _ = try await alice.call(API.functions.contacts.AddContact(id: bob, firstName: "Bob \(index)", lastName: "", phone: ""))
                        return nil
                    } catch {
                        return "\(error)"
                    }
                }
            }
            return await group.reduce(into: [String]()) { if let refusal = $1 { $0.append(refusal) } }
        }
        #expect(!refusals.isEmpty && refusals.allSatisfy { $0.contains("420 FLOOD_WAIT_") }, "\(refusals.prefix(3))")
        await alice.close()
        try await harness.stop()
    }
}
