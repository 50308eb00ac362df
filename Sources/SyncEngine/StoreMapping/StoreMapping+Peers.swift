import Postbox
import TL

/// Server users and chats as Postbox's typed peers, and stored peers as the input peers requests name.
extension StoreMapping {
    /// Users and chats as stored peers; empty constructors (nothing to keep) and ids outside Postbox's 56 bits (which
    /// would overwrite another peer) are left out.
    public static func peers(users: [API.User], chats: [API.Chat]) -> [Peer] {
        (users.compactMap(peer(from:)) + chats.compactMap(peer(from:))).filter { $0.id.fitsStore }
    }

    /// A user as stored, nil for `userEmpty`.
    public static func peer(from user: API.User) -> Peer? {
        guard case let .user(value) = user else { return nil }
        var flags: UserPeer.Flags = []
        if value.`self` { flags.insert(.isSelf) }
        if value.contact { flags.insert(.contact) }
        if value.mutualContact { flags.insert(.mutualContact) }
        if value.bot { flags.insert(.bot) }
        if value.deleted { flags.insert(.deleted) }
        if value.min { flags.insert(.min) }
        return .user(UserPeer(id: Self.user(value.id), accessHash: value.accessHash, firstName: value.firstName ?? "",
                              lastName: value.lastName ?? "", username: value.username ?? activeUsername(value.usernames),
                              phone: value.phone, flags: flags, presence: value.status.flatMap(presence(of:))))
    }

    /// A basic group or channel as stored, nil for `chatEmpty` and communities.
    public static func peer(from chat: API.Chat) -> Peer? {
        let group = { (id: Int64) in PeerID(namespace: groupNamespace, id: id) }
        switch chat {
        case .chatEmpty, .community, .communityForbidden:   // communities are not kept (no chat of theirs is)
            return nil
        case let .chat(value):
            var flags: GroupPeer.Flags = []
            if value.creator { flags.insert(.creator) }
            if value.left { flags.insert(.left) }
            if value.deactivated || value.migratedTo != nil { flags.insert(.deactivated) }
            return .group(GroupPeer(id: group(value.id), title: value.title, participantsCount: value.participantsCount, flags: flags,
                                    defaultBannedRights: value.defaultBannedRights?.flagsWord))
        case let .chatForbidden(value):
            return .group(GroupPeer(id: group(value.id), title: value.title, flags: [.forbidden, .left]))
        case let .channel(value):
            var flags: ChannelPeer.Flags = []
            if value.broadcast { flags.insert(.broadcast) }
            if value.megagroup { flags.insert(.megagroup) }
            if value.creator { flags.insert(.creator) }
            if value.left { flags.insert(.left) }
            if value.min { flags.insert(.min) }
            return .channel(ChannelPeer(id: channel(value.id), accessHash: value.accessHash, title: value.title,
                                        username: value.username ?? activeUsername(value.usernames),
                                        participantsCount: value.participantsCount, flags: flags,
                                        adminRights: value.adminRights?.flagsWord,
                                        bannedRights: value.bannedRights?.flagsWord,
                                        defaultBannedRights: value.defaultBannedRights?.flagsWord))
        case let .channelForbidden(value):
            var flags: ChannelPeer.Flags = [.forbidden, .left]
            if value.broadcast { flags.insert(.broadcast) }
            if value.megagroup { flags.insert(.megagroup) }
            return .channel(ChannelPeer(id: channel(value.id), accessHash: value.accessHash, title: value.title, flags: flags))
        }
    }

    /// The first active one of several usernames (layer 229 lists them when there are more than one).
    static func activeUsername(_ usernames: [API.Username]?) -> String? {
        for case let .username(value) in usernames ?? [] where value.active { return value.username }
        return nil
    }

    /// A `UserStatus` as a presence (`userStatusEmpty`: nil, nothing known).
    public static func presence(of status: API.UserStatus) -> Presence? {
        switch status {
        case .userStatusEmpty: nil
        case let .userStatusOnline(value): .online(expires: value.expires)
        case let .userStatusOffline(value): .offline(wasOnline: value.wasOnline)
        case .userStatusRecently: .recently
        case .userStatusLastWeek: .lastWeek
        case .userStatusLastMonth: .lastMonth
        }
    }

    /// Stores `peers`: a "min" user or channel (seen only in a message) does not replace a full stored copy, whose
    /// access hash is the one that addresses it — only a presence it carries is taken.
    public static func store(_ peers: [Peer], in transaction: Transaction) throws {
        for peer in peers.sorted(by: { $0.id < $1.id }) {
            // Only a min copy reads what is stored (the common full copy is written straight away).
            guard peer.isMin, let stored = try transaction.peer(peer.id), !stored.isMin else {
                try transaction.updatePeer(peer)
                continue
            }
            if case let .user(seen) = peer, case var .user(user) = stored, let presence = seen.presence, presence != user.presence {
                user.presence = presence
                try transaction.updatePeer(.user(user))
            }
        }
    }

    /// How to name a stored peer to the server: users and channels by their access hash, basic groups by id alone.
    public static func inputPeer(_ id: PeerID, stored: Peer?) -> API.InputPeer? {
        if id.namespace == groupNamespace { return .inputPeerChat(.init(chatId: id.id)) }
        switch stored {
        case let .user(user)?: return .inputPeerUser(.init(userId: id.id, accessHash: user.accessHash ?? 0))
        case let .channel(channel)?: return .inputPeerChannel(.init(channelId: id.id, accessHash: channel.accessHash ?? 0))
        default: return nil
        }
    }

    /// A store written before peers were typed keeps them in their TL form (`Transaction.legacyPeers`): each is
    /// converted once, when the account opens; one that no longer decodes is dropped (the server names it again).
    public static func convertLegacyPeers(in postbox: Postbox) async throws {
        guard try await postbox.read({ try $0.hasLegacyPeers() }) else { return }
        _ = try await postbox.transaction { transaction in
            let converted = try transaction.legacyPeers().compactMap { id, data -> Peer? in
                let peer = id.namespace == userNamespace
                    ? (try? API.User.deserialize(data)).flatMap(peer(from:))
                    : (try? API.Chat.deserialize(data)).flatMap(peer(from:))
                return peer?.id == id ? peer : nil
            }
            try transaction.updatePeers(converted)
            try transaction.removeLegacyPeers()
        }
    }
}
