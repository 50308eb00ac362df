/// A basic group (Telegram's "chat"): its messages live in each member's own box, numbered per box like private
/// messages; the group itself holds only its title and members.
public struct ChatRecord: Sendable, Equatable {
    public var id: Int64
    public var title: String
    public var creatorID: Int64
    public var date: Int32
    /// Bumped when the member list changes (`chat.version`, `chatParticipants.version`).
    public var version: Int32
    /// What every member but the creator is refused: the `flags` word of `chatBannedRights`
    /// (`messages.editChatDefaultBannedRights`).
    public var defaultBannedRights: UInt32
    /// The group's photo as `ChatPhoto` TL bytes (nil: none).
    public var photo: [UInt8]?

    public init(id: Int64, title: String, creatorID: Int64, date: Int32, version: Int32 = 1, defaultBannedRights: UInt32 = 0,
                photo: [UInt8]? = nil) {
        self.id = id
        self.title = title
        self.creatorID = creatorID
        self.date = date
        self.version = version
        self.defaultBannedRights = defaultBannedRights
        self.photo = photo
    }
}

public struct ChatMember: Sendable, Equatable {
    public var chatID: Int64
    public var userID: Int64
    public var inviterID: Int64
    public var date: Int32

    public init(chatID: Int64, userID: Int64, inviterID: Int64, date: Int32) {
        self.chatID = chatID
        self.userID = userID
        self.inviterID = inviterID
        self.date = date
    }
}

/// Basic groups and their members.
public protocol ChatStorageReader {
    func chat(id: Int64) throws -> ChatRecord?
    func maxChatID() throws -> Int64
    /// Members in the order they joined.
    func chatMembers(chat: Int64) throws -> [ChatMember]
    /// A member's copy of a basic-group message, found by its sender and its id in the sender's box.
    func linkedCopy(owner: Int64, peer: PeerRef, from: Int64, link: Int32) throws -> StoredMessage?
}

public protocol ChatStorageWriter {
    func upsert(_ chat: ChatRecord) throws
    func upsert(_ member: ChatMember) throws
    func removeChatMember(chat: Int64, user: Int64) throws
}
