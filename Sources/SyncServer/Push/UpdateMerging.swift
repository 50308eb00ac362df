import TL

/// Several pushes queued for one session as one `updatesCombined` (core.telegram.org/api/updates#updates-sequence):
/// short forms expanded to the full updates they stand for, users and chats without repeats, the newest date. The
/// pushes' seqs become the container's `seq_start`…`seq` (0 when none had one: pts updates are ordered by pts); pushes
/// whose seqs do not follow one another are not merged, since the container would claim the ones missing; nor are
/// pushes that carry one user or chat in two versions (a contact change's user as the viewer now sees them beside the
/// same user in an older message's push; a channel before and after a change of the viewer's rights): a container's
/// users and chats are one object per peer, and a client reads each update of it with that object (TDLib's reading of
/// `user.contact`). Short forms carry no users or chats (a client that does not know whom they name asks for a
/// difference); inside a container a client reads every peer from the container's own lists (Pyrogram-family clients
/// show a message whose sender is not there without one), so short forms are merged only when the other pushes carry
/// every peer they name. Nothing is merged when one of the pushes is not an ordinary update
/// (`updatesTooLong`) or does not decode.
enum UpdateMerging {
    static func combined(_ pushes: [[UInt8]], owner: Int64) -> [UInt8]? {
        var merged = Merged()
        for push in pushes {
            guard let updates = try? API.Updates.deserialize(push), merged.add(updates, owner: owner) else { return nil }
        }
        guard !merged.hasTwoVersionsOfAPeer, merged.carriesWhatShortFormsName else { return nil }
        let seqs = merged.seqs.sorted()
        guard let first = seqs.first, let last = seqs.last else {
            return API.Updates.updatesCombined(.init(updates: merged.updates, users: merged.users, chats: merged.chats, date: merged.date,
                                                     seqStart: 0, seq: 0)).serialized()
        }
        guard Int(last) - Int(first) + 1 == seqs.count, Set(seqs).count == seqs.count else { return nil }
        return API.Updates.updatesCombined(.init(updates: merged.updates, users: merged.users, chats: merged.chats, date: merged.date,
                                                 seqStart: first, seq: last)).serialized()
    }

    private struct Merged {
        var updates: [API.Update] = []
        var users: [API.User] = []
        var chats: [API.Chat] = []
        var date: Int32 = 0
        /// Every seq the merged pushes carried.
        var seqs: [Int32] = []
        /// What is already in `users` and `chats`: the serialized objects (a user or chat seen twice is the same bytes).
        private var seenUsers: Set<[UInt8]> = []
        private var seenChats: Set<[UInt8]> = []
        private var userIDs: Set<Int64> = []
        private var chatIDs: Set<ChatKey> = []
        /// A user or a chat came in two different versions.
        private(set) var hasTwoVersionsOfAPeer = false
        /// The users and basic groups short forms name (senders, partners, groups, forward origins).
        private var namedByShortForms: (users: Set<Int64>, groups: Set<Int64>, channels: Set<Int64>) = ([], [], [])

        var carriesWhatShortFormsName: Bool {
            namedByShortForms.users.isSubset(of: userIDs)
                && namedByShortForms.groups.allSatisfy { chatIDs.contains(ChatKey(kind: .group, id: $0)) }
                && namedByShortForms.channels.allSatisfy { chatIDs.contains(ChatKey(kind: .channel, id: $0)) }
        }

        mutating func add(_ updates: API.Updates, owner: Int64) -> Bool {
            switch updates {
            case let .updateShort(value):
                append([value.update], users: [], chats: [], date: value.date)
            case let .updateShortMessage(value):
                appendNew(.message(.init(
                    out: value.out, mentioned: value.mentioned, mediaUnread: value.mediaUnread, silent: value.silent, id: value.id,
                    fromId: .peerUser(.init(userId: value.out ? owner : value.userId)), peerId: .peerUser(.init(userId: value.userId)),
                    fwdFrom: value.fwdFrom, viaBotId: value.viaBotId, replyTo: value.replyTo, date: value.date, message: value.message,
                    entities: value.entities, ttlPeriod: value.ttlPeriod)), pts: value.pts, ptsCount: value.ptsCount, date: value.date)
            case let .updateShortChatMessage(value):
                appendNew(.message(.init(
                    out: value.out, mentioned: value.mentioned, mediaUnread: value.mediaUnread, silent: value.silent, id: value.id,
                    fromId: .peerUser(.init(userId: value.fromId)), peerId: .peerChat(.init(chatId: value.chatId)),
                    fwdFrom: value.fwdFrom, viaBotId: value.viaBotId, replyTo: value.replyTo, date: value.date, message: value.message,
                    entities: value.entities, ttlPeriod: value.ttlPeriod)), pts: value.pts, ptsCount: value.ptsCount, date: value.date)
            case let .updates(value):
                if value.seq != 0 { seqs.append(value.seq) }
                append(value.updates, users: value.users, chats: value.chats, date: value.date)
            case let .updatesCombined(value):
                if value.seq != 0 {
                    guard value.seqStart > 0, value.seqStart <= value.seq, value.seq - value.seqStart < 1_024 else { return false }
                    seqs += Array(value.seqStart...value.seq)
                }
                append(value.updates, users: value.users, chats: value.chats, date: value.date)
            case .updatesTooLong, .updateShortSentMessage:
                return false
            }
            return true
        }

        /// A short form as the `updateNewMessage` it stands for.
        private mutating func appendNew(_ message: API.Message, pts: Int32, ptsCount: Int32, date: Int32) {
            if case let .message(value) = message {
                for peer in [value.fromId, value.peerId, value.fwdFrom.flatMap(Self.origin)].compactMap({ $0 }) {
                    switch peer {
                    case let .peerUser(user): namedByShortForms.users.insert(user.userId)
                    case let .peerChat(chat): namedByShortForms.groups.insert(chat.chatId)
                    case let .peerChannel(channel): namedByShortForms.channels.insert(channel.channelId)
                    }
                }
            }
            append([.updateNewMessage(.init(message: message, pts: pts, ptsCount: ptsCount))], users: [], chats: [], date: date)
        }

        private static func origin(_ header: API.MessageFwdHeader) -> API.Peer? {
            if case let .messageFwdHeader(value) = header { value.fromId } else { nil }
        }

        private mutating func append(_ more: [API.Update], users moreUsers: [API.User], chats moreChats: [API.Chat], date: Int32) {
            updates += more
            for user in moreUsers where seenUsers.insert(user.serialized()).inserted {
                let id: Int64 = switch user {
                case let .user(value): value.id
                case let .userEmpty(value): value.id
                }
                if !userIDs.insert(id).inserted { hasTwoVersionsOfAPeer = true }
                users.append(user)
            }
            for chat in moreChats where seenChats.insert(chat.serialized()).inserted {
                if !chatIDs.insert(ChatKey(chat)).inserted { hasTwoVersionsOfAPeer = true }
                chats.append(chat)
            }
            self.date = max(self.date, date)
        }
    }
}

/// A chat's identity in a container: basic groups, channels and communities number their ids apart.
private struct ChatKey: Hashable {
    enum Kind { case group, channel, community }
    let kind: Kind
    let id: Int64

    init(kind: Kind, id: Int64) { (self.kind, self.id) = (kind, id) }

    init(_ chat: API.Chat) {
        switch chat {
        case let .chatEmpty(value): (kind, id) = (.group, value.id)
        case let .chat(value): (kind, id) = (.group, value.id)
        case let .chatForbidden(value): (kind, id) = (.group, value.id)
        case let .channel(value): (kind, id) = (.channel, value.id)
        case let .channelForbidden(value): (kind, id) = (.channel, value.id)
        case let .community(value): (kind, id) = (.community, value.id)
        case let .communityForbidden(value): (kind, id) = (.community, value.id)
        }
    }
}
