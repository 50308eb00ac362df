import Testing
import TL

/// Clients send `inputPeer*` constructors where `InputChannel`/`InputUser` is expected; the decoder accepts them
/// (the generator's lenient aliases) and still refuses other constructors.
@Suite struct LenientDecodingTests {
    @Test func inputPeerChannelDecodesAsInputChannel() throws {
        let bytes = API.InputPeer.inputPeerChannel(.init(channelId: 77, accessHash: -5)).serialized()
        let decoded = try API.InputChannel.deserialize(bytes)
        guard case let .inputChannel(value) = decoded else { Issue.record("decoded \(decoded)"); return }
        #expect(value.channelId == 77 && value.accessHash == -5)
    }

    @Test func inputPeerSelfAndUserDecodeAsInputUser() throws {
        let me = try API.InputUser.deserialize(API.InputPeer.inputPeerSelf(.init()).serialized())
        #expect(me.constructorName == "inputUserSelf")
        let other = try API.InputUser.deserialize(API.InputPeer.inputPeerUser(.init(userId: 9, accessHash: 3)).serialized())
        guard case let .inputUser(value) = other else { Issue.record("decoded \(other)"); return }
        #expect(value.userId == 9 && value.accessHash == 3)
    }

    @Test func otherPeersStayRefused() {
        let chat = API.InputPeer.inputPeerChat(.init(chatId: 1)).serialized()
        #expect(throws: TLDecodingError.self) { try API.InputChannel.deserialize(chat) }
        #expect(throws: TLDecodingError.self) { try API.InputUser.deserialize(chat) }
    }
}
