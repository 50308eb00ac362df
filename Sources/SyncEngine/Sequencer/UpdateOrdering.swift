import TL

/// Where an update stands in the sequences (UPDATE-RULES §2): every layer-229 update that carries pts or qts
/// is placed in its box; the rest are unordered.
enum UpdateOrdering: Equatable {
    /// Ordered in `box`: applying it moves the box from `pts - count` to `pts`.
    case ordered(UpdateBox, pts: Int32, count: Int32)
    /// `updateChannelTooLong`: the channel has news to fetch (§8).
    case channelTooLong(Int64, pts: Int32?)
    /// No counter: delivered under the container's seq check.
    case unordered

    /// A pts of 0 means "no ordering"; a negative count or `pts < count` is malformed and delivered as unordered
    /// would be wrong too, so it is `malformed` and dropped (TDL drops these).
    init(_ update: API.Update) {
        switch update {
        case let .updateNewMessage(u): self = .common(u.pts, u.ptsCount)
        case let .updateDeleteMessages(u): self = .common(u.pts, u.ptsCount)
        case let .updateReadHistoryInbox(u): self = .common(u.pts, u.ptsCount)
        case let .updateReadHistoryOutbox(u): self = .common(u.pts, u.ptsCount)
        case let .updateReadMessagesContents(u): self = .common(u.pts, u.ptsCount)
        case let .updateEditMessage(u): self = .common(u.pts, u.ptsCount)
        case let .updatePinnedMessages(u): self = .common(u.pts, u.ptsCount)
        case let .updateWebPage(u): self = .common(u.pts, u.ptsCount)
        case let .updateFolderPeers(u): self = .common(u.pts, u.ptsCount)
        case let .updateChannelWebPage(u): self = .channel(u.channelId, u.pts, u.ptsCount)
        case let .updateNewEncryptedMessage(u): self = .secondary(u.qts)
        case let .updateMessagePollVote(u): self = .secondary(u.qts)
        case let .updateChatParticipant(u): self = .secondary(u.qts)
        case let .updateChannelParticipant(u): self = .secondary(u.qts)
        case let .updateBotStopped(u): self = .secondary(u.qts)
        case let .updateBotChatInviteRequester(u): self = .secondary(u.qts)
        case let .updateBotChatBoost(u): self = .secondary(u.qts)
        case let .updateBotMessageReaction(u): self = .secondary(u.qts)
        case let .updateBotMessageReactions(u): self = .secondary(u.qts)
        case let .updateBotBusinessConnect(u): self = .secondary(u.qts)
        case let .updateBotNewBusinessMessage(u): self = .secondary(u.qts)
        case let .updateBotEditBusinessMessage(u): self = .secondary(u.qts)
        case let .updateBotDeleteBusinessMessage(u): self = .secondary(u.qts)
        case let .updateBotPurchasedPaidMedia(u): self = .secondary(u.qts)
        case let .updateManagedBot(u): self = .secondary(u.qts)
        case let .updateBotGuestChatQuery(u): self = .secondary(u.qts)
        case let .updateBotStarsSubscription(u): self = .secondary(u.qts)
        case let .updateNewChannelMessage(u): self = .channel(Self.channelID(of: u.message), u.pts, u.ptsCount)
        case let .updateEditChannelMessage(u): self = .channel(Self.channelID(of: u.message), u.pts, u.ptsCount)
        case let .updateDeleteChannelMessages(u): self = .channel(u.channelId, u.pts, u.ptsCount)
        case let .updatePinnedChannelMessages(u): self = .channel(u.channelId, u.pts, u.ptsCount)
        case let .updateReadChannelInbox(u): self = .channel(u.channelId, u.pts, 0)
        case let .updateChannelTooLong(u): self = .channelTooLong(u.channelId, pts: u.pts)
        default: self = .unordered
        }
    }

    /// Every qts event counts as exactly one (UPDATE-RULES §2).
    private static func secondary(_ qts: Int32) -> UpdateOrdering {
        qts == 0 ? .unordered : .ordered(.secondary, pts: qts, count: 1)
    }

    private static func common(_ pts: Int32, _ count: Int32) -> UpdateOrdering {
        pts == 0 ? .unordered : .ordered(.common, pts: pts, count: count)
    }

    private static func channel(_ id: Int64?, _ pts: Int32, _ count: Int32) -> UpdateOrdering {
        guard let id, pts != 0 else { return .unordered }   // messageEmpty names no channel (GRM)
        return .ordered(.channel(id), pts: pts, count: count)
    }

    static func channelID(of message: API.Message) -> Int64? {
        let peer: API.Peer? = switch message {
        case let .message(value): value.peerId
        case let .messageService(value): value.peerId
        case .messageEmpty: nil
        }
        if case let .peerChannel(channel)? = peer { return channel.channelId }
        return nil
    }

    /// Counters that cannot come from an honest server: a negative count, or a pts below its own count.
    var isMalformed: Bool {
        if case let .ordered(_, pts, count) = self { return count < 0 || pts < count || pts < 0 }
        return false
    }
}
