import SyncTesting
import Testing
import TL

/// The inspector every test client of the server suites carries (`ServerHarness.client`): each answer and push must
/// carry the users and chats it names (`PeerReferences`), so a method added later cannot forget them.
let checkPeerReferences: TestClient.Inspector = { source, value in
    let json = value.toJSON()
    let missing = PeerReferences.missing(in: json)
    guard !missing.isEmpty else { return }
    Issue.record("\(source) (\(PeerReferences.outline(json))) names what it does not carry: \(missing.map(\.description).joined(separator: ", "))")
}

struct PeerReferenceTests {
    private func user(_ id: Int64) -> API.User { .user(.init(id: id, firstName: "U\(id)")) }

    @Test func aServiceMessageNamingAMemberNotCarriedIsFound() {
        let action = API.Message.messageService(.init(
            out: false, id: 5, fromId: .peerUser(.init(userId: 1001)), peerId: .peerChat(.init(chatId: 7)), date: 1,
            action: .messageActionChatAddUser(.init(users: [1003, 1004]))))
        let push = API.Updates.updates(.init(updates: [.updateNewMessage(.init(message: action, pts: 3, ptsCount: 1))],
                                             users: [user(1001), user(1003)], chats: [], date: 1, seq: 0))
        let missing = PeerReferences.missing(in: push)
        #expect(Set(missing.map(\.description)) == ["chat 7 (named by peerChat)", "user 1004 (named by messageActionChatAddUser)"])
    }

    @Test func shortFormsAndStatusUpdatesAreExempt() {
        let short = API.Updates.updateShortMessage(.init(id: 1, userId: 1002, message: "hi", pts: 1, ptsCount: 1, date: 1))
        #expect(PeerReferences.missing(in: short).isEmpty)
        let status = API.Updates.updates(.init(updates: [.updateUserStatus(.init(userId: 1002, status: .userStatusEmpty(.init())))],
                                               users: [], chats: [], date: 1, seq: 0))
        #expect(PeerReferences.missing(in: status).isEmpty)
    }

    @Test func aParticipantAnswerWithoutItsUserIsFound() {
        let answer = API.channels.ChannelParticipant.channelParticipant(.init(
            participant: .channelParticipantSelf(.init(userId: 1002, inviterId: 1001, date: 1)), chats: [], users: [user(1002)]))
        #expect(PeerReferences.missing(in: answer).map(\.description) == ["user 1001 (named by channelParticipantSelf)"])
    }
}
