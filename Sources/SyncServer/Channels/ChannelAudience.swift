/// The members a channel's change is pushed to, with the channel's creator and admins, so that each sees the channel
/// with their own standing (`creator`, `admin_rights`): a client takes a full channel object as the truth, and one
/// pushed without them would take the creator's and admins' rights away until the next answer restored them.
struct ChannelAudience: Sendable, Sequence {
    let ids: [Int64]
    /// The creator's and the admins' memberships, by user.
    let staff: [Int64: ChannelMember]

    /// Nobody to push to; `caller`'s standing for their answer (a change that changed nothing).
    static func nobody(answering caller: ChannelMember) -> ChannelAudience {
        ChannelAudience(ids: [], staff: [caller.userID: caller])
    }

    init(ids: [Int64], staff: [Int64: ChannelMember]) {
        self.ids = ids
        self.staff = staff
    }

    /// Every member of `channel`, and its staff (one more read: the creator and at most
    /// `ChannelAdministration.largestStaff` admins).
    init(channel: Int64, in tx: any StorageReader) throws {
        self.init(ids: try tx.memberIDs(channel: channel), staff: try Self.staff(of: channel, in: tx))
    }

    static func staff(of channel: Int64, in tx: any StorageReader) throws -> [Int64: ChannelMember] {
        let admins = try tx.members(channel: channel, filter: .admins, offset: 0, limit: ChannelAdministration.largestStaff + 1)
        return Dictionary(admins.map { ($0.userID, $0) }, uniquingKeysWith: { first, _ in first })
    }

    var isEmpty: Bool { ids.isEmpty }

    func makeIterator() -> IndexingIterator<[Int64]> { ids.makeIterator() }

    /// `user`'s membership as far as rendering the channel goes: the stored one of the staff, a plain one otherwise.
    func member(_ user: Int64, of channel: ChannelRecord) -> ChannelMember {
        staff[user] ?? ChannelMember(channelID: channel.id, userID: user, role: .member, date: channel.date)
    }
}
