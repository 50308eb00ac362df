import Foundation
import MTProto
import SyncTesting
import Testing
import TL
@testable import SyncServer

private func bobsDialog(_ client: TestClient) async throws -> API.Dialog.Dialog? {
    let dialogs: [API.Dialog] = switch try await client.call(API.functions.messages.GetDialogs(
        offsetDate: 0, offsetId: 0, offsetPeer: .inputPeerEmpty(.init()), limit: 100, hash: 0)) {
    case let .dialogs(value): value.dialogs
    case let .dialogsSlice(value): value.dialogs
    case .dialogsNotModified: []
    }
    return dialogs.lazy.compactMap { if case let .dialog(d) = $0, d.peer == .peerUser(.init(userId: 1002)) { d } else { nil } }.first
}

private func sequenced(_ updates: API.Updates) -> (seq: Int32, update: API.Update)? {
    guard case let .updates(value) = updates, value.updates.count == 1 else { return nil }
    return (value.seq, value.updates[0])
}

/// Notification settings and drafts on both backends: each change told to the user's other sessions with seq, kept,
/// shown in getDialogs (and getAllDrafts), and named by a difference; an unchanged setting tells nobody.
@Suite(.timeLimit(.minutes(2)))
struct ChatSettingsTests {
    @Test(arguments: StorageBackend.all) func notifySettingsAndDraftsAreToldKeptAndListed(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let aliceElsewhere = try await harness.loggedIn(alicePhone)
        let bob = try await inputUser(1002, in: alice)
        let first = try await send("about the plan", to: bob, from: alice)
        _ = try await aliceElsewhere.nextPush()
        let before = try await state(of: alice)

        let muted = API.InputPeerNotifySettings.inputPeerNotifySettings(.init(silent: true, muteUntil: Int32.max))
        #expect(try await alice.call(API.functions.account.UpdateNotifySettings(peer: .inputNotifyPeer(.init(peer: bob)), settings: muted)))
        let told = sequenced(try await aliceElsewhere.nextPush())
        guard case let .updateNotifySettings(notify)? = told?.update, case let .peerNotifySettings(settings) = notify.notifySettings else {
            Issue.record("no updateNotifySettings"); return
        }
        #expect(told?.seq == 1 && settings.muteUntil == Int32.max && settings.silent == true)
        _ = try await alice.nextPush()
        #expect(try await alice.call(API.functions.account.UpdateNotifySettings(peer: .inputNotifyPeer(.init(peer: bob)), settings: muted)),
                "unchanged: true, nothing told")
        guard case let .peerNotifySettings(read) = try await alice.call(API.functions.account.GetNotifySettings(
            peer: .inputNotifyPeer(.init(peer: bob)))) else { Issue.record("no settings"); return }
        #expect(read.muteUntil == Int32.max)
        if case let .peerNotifySettings(listed)? = try await bobsDialog(alice)?.notifySettings { #expect(listed.muteUntil == Int32.max) }
        #expect(try await alice.call(API.functions.account.UpdateNotifySettings(peer: .inputNotifyBroadcasts(.init()),
                                                                                settings: .inputPeerNotifySettings(.init(showPreviews: false)))))
        _ = try await alice.nextPush(); _ = try await aliceElsewhere.nextPush()

        // A draft replying to the first message, then its removal.
        #expect(try await alice.call(API.functions.messages.SaveDraft(replyTo: .inputReplyToMessage(.init(replyToMsgId: first.id)), peer: bob,
                                                                      message: "half a thought")))
        guard case let .updateDraftMessage(saved)? = sequenced(try await aliceElsewhere.nextPush())?.update,
              case let .draftMessage(draft) = saved.draft else { Issue.record("no updateDraftMessage"); return }
        #expect(draft.message == "half a thought" && saved.peer == .peerUser(.init(userId: 1002)))
        _ = try await alice.nextPush()
        guard case let .draftMessage(listed)? = try await bobsDialog(alice)?.draft else { Issue.record("no draft in the dialog"); return }
        #expect(listed.message == "half a thought" && listed.replyTo == .inputReplyToMessage(.init(replyToMsgId: first.id)))
        guard case let .updates(all) = try await alice.call(API.functions.messages.GetAllDrafts()) else { Issue.record("no drafts"); return }
        #expect(all.updates.map(\.constructorName) == ["updateDraftMessage"])
        #expect(try await alice.call(API.functions.messages.SaveDraft(peer: bob, message: "")))
        guard case .updateDraftMessage(let cleared)? = sequenced(try await aliceElsewhere.nextPush())?.update,
              case .draftMessageEmpty = cleared.draft else { Issue.record("no empty draft told"); return }
        _ = try await alice.nextPush()
        #expect(try await bobsDialog(alice)?.draft == nil)

        await expectRPCError("PEER_ID_INVALID") {
            try await alice.call(API.functions.messages.SaveDraft(peer: try await inputUser(1003, in: alice), message: "no chat yet"))
        }
        await expectRPCError("MESSAGE_TOO_LONG") {
            try await alice.call(API.functions.messages.SaveDraft(peer: bob, message: String(repeating: "x", count: 4_097)))
        }

        // A difference from before names the four changes, with the state's seq.
        guard case let .difference(difference) = try await aliceElsewhere.call(API.functions.updates.GetDifference(
            pts: before.pts, date: before.date, qts: 0)) else { Issue.record("no difference"); return }
        #expect(difference.otherUpdates.map(\.constructorName).filter { $0 != "updateChannelTooLong" }
                == ["updateNotifySettings", "updateNotifySettings", "updateDraftMessage", "updateDraftMessage"])
        if case let .state(final) = difference.state { #expect(final.seq == 4) }
        for client in [alice, aliceElsewhere] { await client.close() }
        try await harness.stop()
    }

    /// More seq events since a state's date than one difference page holds (here: drafts of 12 KB past its megabyte):
    /// the page stops at the last one it gives — its state's seq and date — and the next request brings the rest, so
    /// none is lost under a seq that covers it.
    @Test(arguments: StorageBackend.all) func seqEventsPastAPageComeInTheNextOne(backend: StorageBackend) async throws {
        let harness = try await ServerHarness(backend: backend)
        let alice = try await harness.loggedIn(alicePhone)
        let bob = try await inputUser(1002, in: alice)
        _ = try await send("hi", to: bob, from: alice)
        let before = try await state(of: alice)
        let count = 90
        for index in 0..<count {
            _ = try await alice.call(API.functions.messages.SaveDraft(peer: bob, message: "\(index) " + String(repeating: "€", count: 4_000)))
        }
        var (date, drafts, pages) = (before.date, 0, 0)
        var seq: Int32 = 0
        while pages < 10 {
            pages += 1
            let answer = try await alice.call(API.functions.updates.GetDifference(pts: before.pts, date: date, qts: 0))
            switch answer {
            case let .differenceSlice(slice):
                drafts += slice.otherUpdates.filter { $0.constructorName == "updateDraftMessage" }.count
                guard case let .state(intermediate) = slice.intermediateState else { return }
                #expect(intermediate.seq < Int32(count), "a cut page's state stops at its last event")
                (date, seq) = (intermediate.date, intermediate.seq)
                continue
            case let .difference(final):
                drafts += final.otherUpdates.filter { $0.constructorName == "updateDraftMessage" }.count
                if case let .state(last) = final.state { seq = last.seq }
            default: Issue.record("\(answer.constructorName)")
            }
            break
        }
        #expect(pages >= 2 && seq == Int32(count))
        #expect(drafts >= count, "every draft update was listed (one at a page's edge may come twice)")
        await alice.close()
        try await harness.stop()
    }
}
