import Foundation
import Postbox
import SyncServer
import Testing
import TL
@testable import SyncEngine

/// Drafts and notification settings in the client: a second device of Alice follows her drafts and settings live
/// (`updateDraftMessage`, `updateNotifySettings` with seq) and after a catch-up (from the difference), and a fresh
/// device's chat list brings them from the dialogs.
@Suite(.timeLimit(.minutes(2)))
struct ChatSettingsSyncTests {
    @Test func draftsAndSettingsReachTheOtherDeviceLiveAndAfterACatchUp() async throws {
        try await AccountTests.withServer("account-chat-settings") { server, root in
            let alice = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice", server)
            var elsewhere = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice2", server)
            let bobPeer = try await alice.resolve(username: "bob")
            _ = try await alice.send("hi", to: bobPeer)
            #expect(try await TestWorld.eventually { try await elsewhere.postbox.read { try $0.chatListEntry(bobPeer) } != nil })

            try await alice.saveDraft("half a thought", in: bobPeer)
            #expect(try await alice.draft(in: bobPeer)?.text == "half a thought")
            #expect(try await TestWorld.eventually { try await elsewhere.postbox.read { try $0.draft(bobPeer) }?.text == "half a thought" })
            let muted = NotificationSettings(muteUntil: Int32.max, silent: true)
            try await alice.setNotificationSettings(muted, for: bobPeer)
            #expect(try await TestWorld.eventually { try await elsewhere.postbox.read { try $0.notificationSettings(bobPeer) } == muted })

            // Offline meanwhile: the reopened device catches up from the difference.
            try await elsewhere.synced()
            await elsewhere.close()
            try await alice.saveDraft("", in: bobPeer)
            try await alice.setNotificationSettings(NotificationSettings(muteUntil: 0), for: bobPeer)
            elsewhere = try await Account.open(AccountTests.configuration(root + "/alice2", server))
            #expect(try await TestWorld.eventually { try await elsewhere.postbox.read { try $0.draft(bobPeer) } == nil })
            #expect(try await TestWorld.eventually {
                try await elsewhere.postbox.read { try $0.notificationSettings(bobPeer) }?.muteUntil == 0
            })

            // A new device: the chat list's dialogs bring the settings.
            try await alice.saveDraft("for later", in: bobPeer, replyTo: 1)
            let fresh = try await AccountTests.logIn(TestWorld.alicePhone, root + "/alice3", server)
            #expect(try await TestWorld.eventually { try await fresh.postbox.read { try $0.draft(bobPeer) }?.replyTo == 1 })
            #expect(try await fresh.notificationSettings(of: bobPeer).muteUntil == 0)
            for account in [alice, elsewhere, fresh] { await account.close() }
        }
    }
}
