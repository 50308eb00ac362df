import Postbox
import TL

/// Member lists: read from the server on demand and kept in the store, where `ParticipantsView` shows them. A basic
/// group's list comes whole with `messages.getFullChat`; a channel's in pages of `channels.getParticipants`
/// (recent members, at most `limit`). Banned and departed members are not listed.
extension Account {
    /// Members one `channels.getParticipants` page asks for (the method's maximum).
    static let participantsPage: Int32 = 200

    /// Reads `chat`'s members from the server, stores them (with the users they name) in place of the stored list,
    /// and returns them as stored: the creator, then admins, then members by join date.
    @discardableResult
    public func participants(of chat: PeerID, limit: Int = 1_000) async throws -> [Participant] {
        let (members, users) = switch try await inputPeer(chat) {
        case let .inputPeerChat(group): try await groupMembers(group.chatId)
        case let .inputPeerChannel(channel):
            try await channelMembers(.inputChannel(.init(channelId: channel.channelId, accessHash: channel.accessHash)), limit: limit)
        default: throw AccountError.unsupportedPeer("\(chat) is not a group or channel")
        }
        let peers = StoreMapping.peers(users: users, chats: [])
        return try await postbox.transaction { transaction in
            try StoreMapping.store(peers, in: transaction)
            try transaction.replaceParticipants(of: chat, members)
            return try transaction.participants(of: chat)
        }.0
    }

    private func groupMembers(_ chatID: Int64) async throws -> ([Participant], [API.User]) {
        guard case let .chatFull(full) = try await network.send(API.functions.messages.GetFullChat(chatId: chatID)),
              case let .chatFull(details) = full.fullChat else { return ([], []) }
        guard case let .chatParticipants(list) = details.participants else { return ([], full.users) }   // forbidden: no list
        return (list.participants.compactMap(StoreMapping.participant(from:)), full.users)
    }

    /// Pages until the server's list ends or `limit` entries were read (counted as the server sent them, so a page of
    /// entries that are not members still moves on, and a server that never ends its list stops at `limit`).
    private func channelMembers(_ channel: API.InputChannel, limit: Int) async throws -> ([Participant], [API.User]) {
        var members: [Participant] = [], users: [API.User] = [], read = 0
        while read < limit {
            let answer = try await network.send(API.functions.channels.GetParticipants(
                channel: channel, filter: .channelParticipantsRecent(.init()), offset: Int32(clamping: read),
                limit: min(Self.participantsPage, Int32(clamping: limit - read)), hash: 0))
            guard case let .channelParticipants(page) = answer, !page.participants.isEmpty else { break }
            read += page.participants.count
            members += page.participants.compactMap(StoreMapping.participant(from:))
            users += page.users
            if page.participants.count < Int(Self.participantsPage) || read >= Int(page.count) { break }
        }
        return (members, users)
    }
}

extension StoreMapping {
    /// A basic group's member as stored; nil for a user id outside Postbox's 56 bits (it would name another peer).
    static func participant(from member: API.ChatParticipant) -> Participant? {
        let participant: Participant = switch member {
        case let .chatParticipant(value):
            Participant(peer: user(value.userId), inviter: user(value.inviterId), date: value.date)
        case let .chatParticipantCreator(value):
            Participant(peer: user(value.userId), role: .creator)
        case let .chatParticipantAdmin(value):
            Participant(peer: user(value.userId), role: .admin, inviter: user(value.inviterId), date: value.date)
        }
        return participant.peer.fitsStore ? participant : nil
    }

    /// A channel's member as stored; nil for banned and departed ones (not members) and ids Postbox cannot hold. A
    /// restricted member (`channelParticipantBanned` neither `left` nor refused `view_messages`) is still a member.
    static func participant(from member: API.ChannelParticipant) -> Participant? {
        let participant: Participant? = switch member {
        case let .channelParticipant(value): Participant(peer: user(value.userId), date: value.date)
        case let .channelParticipantSelf(value): Participant(peer: user(value.userId), inviter: user(value.inviterId), date: value.date)
        case let .channelParticipantCreator(value): Participant(peer: user(value.userId), role: .creator)
        case let .channelParticipantAdmin(value):
            Participant(peer: user(value.userId), role: .admin, inviter: value.inviterId.map(user), date: value.date)
        case let .channelParticipantBanned(value):
            if !value.left, !BannedRights(value.bannedRights).contains(.viewMessages), case let .peerUser(peer) = value.peer {
                Participant(peer: user(peer.userId), date: value.date)
            } else {
                nil
            }
        case .channelParticipantLeft: nil
        }
        return participant?.peer.storable == nil ? nil : participant
    }
}
