/// An admin's rights as Telegram numbers them: the bits of `chatAdminRights`'s `flags` word (layer 229,
/// core.telegram.org/constructor/chatAdminRights). Named here are the rights the server acts on; the word keeps the
/// others (anonymous, the stories and topics rights, …) as they were given, so both sides can store and show them back.
public struct AdminRights: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let changeInfo = AdminRights(rawValue: 1 << 0)
    public static let postMessages = AdminRights(rawValue: 1 << 1)
    public static let editMessages = AdminRights(rawValue: 1 << 2)
    public static let deleteMessages = AdminRights(rawValue: 1 << 3)
    public static let banUsers = AdminRights(rawValue: 1 << 4)
    public static let inviteUsers = AdminRights(rawValue: 1 << 5)
    public static let pinMessages = AdminRights(rawValue: 1 << 7)
    public static let addAdmins = AdminRights(rawValue: 1 << 9)
    public static let manageCall = AdminRights(rawValue: 1 << 11)
    public static let other = AdminRights(rawValue: 1 << 12)

    public init(_ rights: API.ChatAdminRights) { self.init(rawValue: rights.flagsWord) }

    /// As a client reads them.
    public var tl: API.ChatAdminRights { API.ChatAdminRights(flagsWord: rawValue) }
}

/// What a member of a supergroup may be refused, as Telegram numbers it: the bits of `chatBannedRights`'s `flags` word
/// (layer 229, core.telegram.org/constructor/chatBannedRights). Named here are the restrictions the server acts on and
/// `view_messages` (a member refused it is banned, not restricted); the word keeps the others (media, stickers, polls, …).
public struct BannedRights: OptionSet, Sendable, Hashable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    public static let viewMessages = BannedRights(rawValue: 1 << 0)
    public static let sendMessages = BannedRights(rawValue: 1 << 1)
    public static let changeInfo = BannedRights(rawValue: 1 << 10)
    public static let inviteUsers = BannedRights(rawValue: 1 << 15)
    public static let pinMessages = BannedRights(rawValue: 1 << 17)
    public static let sendPlain = BannedRights(rawValue: 1 << 25)

    /// The restrictions of `rights` (its `until_date` is not part of them).
    public init(_ rights: API.ChatBannedRights) { self.init(rawValue: rights.flagsWord) }
}
