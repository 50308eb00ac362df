import MTProto
import TL

/// An admin's rights as Telegram numbers them: the bits of `chatAdminRights`'s `flags` word (layer 229,
/// core.telegram.org/constructor/chatAdminRights). Kept as that word, so a right this server does not act on
/// (anonymous, manage_call, the stories and topics rights) is stored and shown back as it was given.
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

    /// The usual set a client offers: everything but adding admins. Admins stored before rights were kept have it.
    public static let standard: AdminRights = [.changeInfo, .postMessages, .editMessages, .deleteMessages, .banUsers, .inviteUsers,
                                               .pinMessages, .manageCall, .other]
    /// The creator's.
    public static let creator: AdminRights = standard.union(.addAdmins)

    init(_ rights: API.ChatAdminRights) { self.init(rawValue: rights.flagsWord) }

    /// As a client reads them.
    var tl: API.ChatAdminRights { API.ChatAdminRights(flagsWord: rawValue) }
}

/// An admin's title (`rank` of `channels.editAdmin`): at most 16 characters as Telegram's apps count them (UTF-16
/// units), without emoji (`ADMIN_RANK_INVALID`, `ADMIN_RANK_EMOJI_NOT_ALLOWED`).
enum AdminRank {
    static let maximumUnits = 16

    /// The rank to store: nil for none (an empty one).
    static func checked(_ rank: String?) throws(RPCError) -> String? {
        guard let rank, !rank.isEmpty else { return nil }
        guard rank.utf16.count <= maximumUnits else { throw RPCError.badRequest("ADMIN_RANK_INVALID") }
        if rank.unicodeScalars.contains(where: { $0.properties.isEmojiPresentation || $0.value == 0xFE0F }) {
            throw RPCError.badRequest("ADMIN_RANK_EMOJI_NOT_ALLOWED")
        }
        return rank
    }
}
