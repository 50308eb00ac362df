import Foundation
import Postbox
import SyncTesting
import Testing
import TL
@testable import SyncEngine

/// Typing marks with their expiry: the sans-I/O rules at given times, then `Account.typingMarks` over real sockets.
@Suite(.timeLimit(.minutes(3)))
struct TypingMarksTests {
    static let chat = StoreMapping.user(1001)

    static func typing(_ user: Int64, _ action: API.SendMessageAction, in chat: PeerID = chat) -> Typing {
        Typing(chat: chat, user: user, action: action)
    }

    @Test func aMarkStandsItsLifetimeUnlessRepeatedCancelledOrAnswered() {
        var marks = TypingMarks(lifetime: 6)
        let changed1 = marks.apply(Self.typing(1001, .sendMessageTypingAction(.init())), now: 100)
        #expect(changed1)
        #expect(marks.current == [Self.chat: [1001: .typing]])
        #expect(marks.nextDeadline == 106)
        // Repeated: the same mark, standing longer; nothing to redraw.
        let changed2 = marks.apply(Self.typing(1001, .sendMessageTypingAction(.init())), now: 104)
        #expect(!changed2)
        let changed3 = marks.expire(now: 106)
        #expect(!changed3)
        let changed4 = marks.expire(now: 110)
        #expect(changed4)
        #expect(marks.current.isEmpty && marks.nextDeadline == nil)

        let changed5 = marks.apply(Self.typing(1001, .sendMessageRecordAudioAction(.init())), now: 200)
        #expect(changed5)
        let changed6 = marks.apply(Self.typing(1001, .sendMessageCancelAction(.init())), now: 201)
        #expect(changed6)
        #expect(marks.current.isEmpty)
        let changed7 = marks.apply(Self.typing(1001, .sendMessageCancelAction(.init())), now: 202)   // nothing stood
        #expect(!changed7)

        // Two users in a group: a message of one ends only theirs.
        let group = PeerID(namespace: StoreMapping.groupNamespace, id: 7)
        _ = marks.apply(Self.typing(1001, .sendMessageTypingAction(.init()), in: group), now: 300)
        _ = marks.apply(Self.typing(1002, .sendMessageUploadPhotoAction(.init(progress: 10)), in: group), now: 301)
        let changed8 = marks.messageArrived(from: 1001, in: group)
        #expect(changed8)
        #expect(marks.current == [group: [1002: .uploadingPhoto(percent: 10)]])
        let changed9 = marks.messageArrived(from: 1001, in: Self.chat)
        #expect(!changed9)
    }

    @Test func marksSetByTheOtherSideAppearThenEndByTimeAndByMessage() async throws {
        try await AccountTests.withAliceAndBob("typing-marks") { alice, bob in
            let bobPeer = try await alice.resolve(username: "bob")
            let aliceID = try #require(await alice.user?.id)
            let aliceChat = StoreMapping.user(aliceID)
            var marks = bob.typingMarks(lifetime: 0.5).makeAsyncIterator()
            try await alice.setTyping(.typing, in: bobPeer)
            #expect(await marks.next() == [aliceChat: [aliceID: .typing]])
            #expect(await marks.next() == [:])   // its half second ran out: nothing else was sent

            try await alice.setTyping(.recordingVoice, in: bobPeer)
            #expect(await marks.next() == [aliceChat: [aliceID: .recordingVoice]])
            try await alice.send("a voice note, in words", to: bobPeer)
            #expect(await marks.next() == [:])
        }
    }
}
