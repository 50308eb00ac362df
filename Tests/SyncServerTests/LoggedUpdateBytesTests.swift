@testable import SyncServer
import TL
import Testing

/// The field-by-field reading of logged updates that lets `getDifference` copy stored messages into its answer.
@Suite struct LoggedUpdateBytesTests {
    private func logged(_ message: API.Message) -> [UInt8] {
        API.Update.updateNewMessage(.init(message: message, pts: 7, ptsCount: 1)).serialized()
    }

    @Test func theMessageInsideUpdateNewMessageIsItsExactBytes() throws {
        let message = API.Message.message(.init(id: 5, fromId: .peerUser(.init(userId: 11)), peerId: .peerUser(.init(userId: 12)),
                                                date: 1_700_000_000, message: "hello"))
        let slice = try #require(LoggedUpdateBytes.newMessage(in: logged(message)))
        #expect(Array(slice) == message.serialized())
        #expect(LoggedUpdateBytes.newMessage(in: API.Update.updateDeleteMessages(.init(messages: [1], pts: 2, ptsCount: 1)).serialized()) == nil)
        #expect(LoggedUpdateBytes.newMessage(in: [0xfd, 0x0a]) == nil)
    }

    @Test func peersSkipTheOptionalFieldsBeforePeerID() throws {
        let cases: [(API.Message, [PeerRef])] = [
            (.message(.init(id: 1, peerId: .peerUser(.init(userId: 12)), date: 1, message: "no from")), [.user(12)]),
            (.message(.init(out: true, id: 2, fromId: .peerUser(.init(userId: 11)), fromBoostsApplied: 3, fromRank: "admin",
                            peerId: .peerUser(.init(userId: 12)), date: 1, message: "all optional fields")), [.user(11), .user(12)]),
            (.message(.init(id: 3, fromId: .peerUser(.init(userId: 11)), peerId: .peerChat(.init(chatId: 40)), date: 1, message: "group")), [.user(11), .chat(40)]),
            (.messageService(.init(id: 4, fromId: .peerUser(.init(userId: 13)), peerId: .peerChat(.init(chatId: 40)), date: 1,
                                   action: .messageActionChatCreate(.init(title: "t", users: [13])))), [.user(13), .chat(40)]),
        ]
        for (message, users) in cases {
            let slice = try #require(LoggedUpdateBytes.newMessage(in: logged(message)))
            #expect(LoggedUpdateBytes.peers(inMessage: slice) == users)
        }
        #expect(LoggedUpdateBytes.peers(inMessage: [0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0][...]) == nil)
        #expect(LoggedUpdateBytes.peers(inMessage: ArraySlice(API.Message.message(.init(id: 1, peerId: .peerUser(.init(userId: 1)),
            date: 1, message: "x")).serialized().prefix(12))) == nil)
    }
}
