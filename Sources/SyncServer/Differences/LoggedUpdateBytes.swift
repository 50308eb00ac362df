import TL

/// Reading what a difference needs straight from a logged update's bytes, so that `updates.getDifference` can copy
/// stored messages into its answer instead of decoding and re-encoding each one (core.telegram.org/api/updates:
/// a difference carries the logged `updateNewMessage`s as `new_messages`).
enum LoggedUpdateBytes {
    private static let newMessageID = API.Update.UpdateNewMessage.constructorID
    private static let messageID = API.Message.Message.constructorID
    private static let serviceID = API.Message.MessageService.constructorID

    /// The serialized `Message` inside a logged `updateNewMessage#1f2b0afd message:Message pts:int pts_count:int`
    /// (everything between the constructor id and the two trailing ints), or nil for any other update.
    static func newMessage(in body: [UInt8]) -> ArraySlice<UInt8>? {
        guard body.count > 12, (try? TLReader(body).peekUInt32()) == newMessageID else { return nil }
        return body[4..<(body.count - 8)]
    }

    /// Whether a serialized message names peers besides `from_id` and `peer_id`: a service message (its action's
    /// members), a forward (`fwd_from`, flags bit 2) or one sent through a bot (`via_bot_id`, bit 11).
    static func namesMoreThanItsPeers(_ bytes: ArraySlice<UInt8>) -> Bool {
        var reader = TLReader(Array(bytes.prefix(8)))
        guard let constructor = try? reader.readUInt32(), let flags = try? reader.readInt32() else { return false }
        return constructor == serviceID || (constructor == messageID && flags & (1 << 2 | 1 << 11) != 0)
    }

    /// The peers a serialized message names (`from_id` when present, then `peer_id`), read field by field up to
    /// `peer_id` as layer 229 lays out `message` and `messageService`; nil if the bytes are something else.
    static func peers(inMessage bytes: ArraySlice<UInt8>) -> [PeerRef]? {
        var reader = TLReader(Array(bytes))
        do throws(TLDecodingError) {
            let constructor = try reader.readUInt32()
            let flags = try reader.readInt32()
            var from: API.Peer?
            switch constructor {
            case messageID:
                let flags2 = try reader.readInt32()
                _ = try reader.readInt32()                                          // id
                if flags & (1 << 8) != 0 { from = try API.Peer.decode(from: &reader) }
                if flags & (1 << 29) != 0 { _ = try reader.readInt32() }            // from_boosts_applied
                if flags2 & (1 << 12) != 0 { _ = try reader.readString() }          // from_rank
            case serviceID:
                _ = try reader.readInt32()                                          // id
                if flags & (1 << 8) != 0 { from = try API.Peer.decode(from: &reader) }
            default:
                return nil
            }
            let peer = try API.Peer.decode(from: &reader)
            return [from, peer].compactMap { peer in
                switch peer {
                case let .peerUser(value)?: .user(value.userId)
                case let .peerChat(value)?: .chat(value.chatId)
                case let .peerChannel(value)?: .channel(value.channelId)
                case nil: nil
                }
            }
        } catch {
            return nil
        }
    }
}
