import TL

/// Basic groups as the layer-229 objects clients receive.
enum ChatRendering {
    /// The group as `viewer` sees it, with its default restrictions (which bind everyone but the creator).
    static func chat(_ record: ChatRecord, memberCount: Int, viewer: Int64) -> API.Chat {
        .chat(.init(creator: record.creatorID == viewer, id: record.id, title: record.title.clamped(toUnits: InputLimits.titleLength),
                    photo: ChatPhotos.rendered(record.photo),
                    participantsCount: Int32(clamping: memberCount), date: record.date, version: record.version,
                    defaultBannedRights: BasicGroupRestrictions.defaults(of: record)))
    }

    static func participants(_ record: ChatRecord, members: [ChatMember]) -> API.ChatParticipants {
        .chatParticipants(.init(chatId: record.id, participants: members.map { member in
            member.userID == record.creatorID
                ? .chatParticipantCreator(.init(userId: member.userID))
                : .chatParticipant(.init(userId: member.userID, inviterId: member.inviterID, date: member.date))
        }, version: record.version))
    }

    /// The groups among `peers` as `viewer` sees them (for the `chats` vector of a result).
    static func chats(among peers: [PeerRef], viewer: Int64, in tx: any StorageReader) throws -> [API.Chat] {
        var seen: Set<Int64> = []
        return try peers.compactMap { peer in
            guard case let .chat(id) = peer, seen.insert(id).inserted, let record = try tx.chat(id: id) else { return nil }
            return chat(record, memberCount: try tx.chatMembers(chat: id).count, viewer: viewer)
        }
    }
}
