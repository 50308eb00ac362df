import MTProto
import TL

/// The admin rights the server gives without being asked (`AdminRights` itself lives in TL, shared with the client).
extension AdminRights {
    /// The usual set a client offers: everything but adding admins. Admins stored before rights were kept have it.
    public static let standard: AdminRights = [.changeInfo, .postMessages, .editMessages, .deleteMessages, .banUsers, .inviteUsers,
                                               .pinMessages, .manageCall, .other]
    /// The creator's.
    public static let creator: AdminRights = standard.union(.addAdmins)
}

extension ChannelMember {
    /// Whether this member holds `right`: the creator holds all, an admin those stored, a member none.
    public func has(_ right: AdminRights) -> Bool {
        switch role {
        case .creator: true
        case .admin: AdminRights(rawValue: adminRights).contains(right)
        case .member: false
        }
    }

    /// Posting in a broadcast channel.
    public var canPost: Bool { has(.postMessages) }
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
