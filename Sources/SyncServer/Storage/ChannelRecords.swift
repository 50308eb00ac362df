/// Channel rows (broadcast channels and supergroups). A channel has one message sequence and one update log
/// shared by all its members, numbered by the channel's own pts (core.telegram.org/api/updates#channel-updates).

public struct ChannelRecord: Sendable, Equatable {
    public var id: Int64
    public var accessHash: Int64
    public var title: String
    public var about: String
    public var username: String?
    /// A broadcast channel (only admins post); otherwise a supergroup (megagroup).
    public var broadcast: Bool
    public var creatorID: Int64
    public var date: Int32
    /// The channel's update sequence: every new, edited or deleted message moves it.
    public var pts: Int32 = 0
    /// The date of the last event (`getDifference` names channels with events since a client's state date).
    public var lastEventDate: Int32 = 0
    public var nextMessageID: Int32 = 1
    /// Supergroups: the highest id any member has read, the outbox mark of the messages' senders
    /// (`updateReadChannelOutbox`, the dialog's `read_outbox_max_id`).
    public var readOutboxMaxID: Int32 = 0
    /// Supergroups: what every plain member is refused (`messages.editChatDefaultBannedRights`), as the `flags` word
    /// of `chatBannedRights` (`BannedRights`).
    public var defaultBannedRights: UInt32 = 0
    /// The channel's photo as `ChatPhoto` TL bytes (nil: none).
    public var photo: [UInt8]?

    public init(id: Int64, accessHash: Int64, title: String, about: String = "", username: String? = nil, broadcast: Bool,
                creatorID: Int64, date: Int32, pts: Int32 = 0, lastEventDate: Int32 = 0, nextMessageID: Int32 = 1,
                readOutboxMaxID: Int32 = 0, defaultBannedRights: UInt32 = 0, photo: [UInt8]? = nil) {
        self.id = id
        self.accessHash = accessHash
        self.title = title
        self.about = about
        self.username = username
        self.broadcast = broadcast
        self.creatorID = creatorID
        self.date = date
        self.pts = pts
        self.lastEventDate = lastEventDate
        self.nextMessageID = nextMessageID
        self.readOutboxMaxID = readOutboxMaxID
        self.defaultBannedRights = defaultBannedRights
        self.photo = photo
    }
}

/// One user's membership of a channel, with that user's read mark.
public struct ChannelMember: Sendable, Equatable {
    public enum Role: Int, Sendable {
        case member = 0
        case admin = 1
        case creator = 2
    }

    public var channelID: Int64
    public var userID: Int64
    public var role: Role
    public var date: Int32
    public var readInboxMaxID: Int32
    /// An admin's rights, as the `flags` word of `chatAdminRights` (`AdminRights`); 0 for a member. The creator has
    /// every right whatever is stored.
    public var adminRights: UInt32
    /// An admin's title in the member list (`rank`), nil for none.
    public var adminRank: String?
    /// Who made this member an admin (nil: the channel's creator, as for admins stored before rights were kept).
    public var promotedBy: Int64?
    /// A plain member's own restrictions (`channels.editBanned` without `view_messages`), as the `flags` word of
    /// `chatBannedRights`; 0 for none.
    public var bannedRights: UInt32
    /// Until when the restrictions hold (0: for good).
    public var bannedUntil: Int32
    /// Who restricted this member.
    public var restrictedBy: Int64?

    public init(channelID: Int64, userID: Int64, role: Role, date: Int32, readInboxMaxID: Int32 = 0, adminRights: UInt32 = 0,
                adminRank: String? = nil, promotedBy: Int64? = nil, bannedRights: UInt32 = 0, bannedUntil: Int32 = 0,
                restrictedBy: Int64? = nil) {
        self.channelID = channelID
        self.userID = userID
        self.role = role
        self.date = date
        self.readInboxMaxID = readInboxMaxID
        self.adminRights = adminRights
        self.adminRank = adminRank
        self.promotedBy = promotedBy
        self.bannedRights = bannedRights
        self.bannedUntil = bannedUntil
        self.restrictedBy = restrictedBy
    }
}

/// A message of a channel: one copy for all members (`out` depends on who looks at it).
public struct ChannelMessage: Sendable, Equatable {
    public var channelID: Int64
    public var id: Int32
    public var fromID: Int64
    public var date: Int32
    public var text: String
    /// `Vector<MessageEntity>` as TL bytes; empty when there are none.
    public var entities: [UInt8]
    public var editDate: Int32?
    /// A service message's `MessageAction` as TL bytes; empty for an ordinary message.
    public var action: [UInt8]
    /// The message of the channel it replies to.
    public var replyTo: Int32?
    /// Pinned in the channel.
    public var pinned: Bool
    /// A forwarded message's `MessageFwdHeader` as TL bytes (nil: not forwarded).
    public var forward: [UInt8]?
    /// The message's `MessageMedia` as TL bytes (nil: text only).
    public var media: [UInt8]?
    /// What the media is, for the search filters.
    public var mediaKind: MediaKind
    /// The album it belongs to (`messages.sendMultiMedia`).
    public var groupedID: Int64?

    public init(channelID: Int64, id: Int32, fromID: Int64, date: Int32, text: String, entities: [UInt8] = [],
                editDate: Int32? = nil, action: [UInt8] = [], replyTo: Int32? = nil, pinned: Bool = false, forward: [UInt8]? = nil,
                media: [UInt8]? = nil, mediaKind: MediaKind = .none, groupedID: Int64? = nil) {
        self.channelID = channelID
        self.id = id
        self.fromID = fromID
        self.date = date
        self.text = text
        self.entities = entities
        self.editDate = editDate
        self.action = action
        self.replyTo = replyTo
        self.pinned = pinned
        self.forward = forward
        self.media = media
        self.mediaKind = mediaKind
        self.groupedID = groupedID
    }
}
