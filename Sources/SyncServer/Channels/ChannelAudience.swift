/// The members a channel's change is pushed to, with the channel's creator, admins and restricted members, so that each
/// sees the channel with their own standing (`creator`, `admin_rights`, `banned_rights`): a client takes a full channel
/// object as the truth, and one pushed without them would take the rights (or restrictions) away until the next answer
/// restored them.
struct ChannelAudience: Sendable, Sequence {
    let ids: [Int64]
    /// The memberships of the creator, the admins and the restricted members, by user.
    let standing: [Int64: ChannelMember]

    /// Nobody to push to; `caller`'s standing for their answer (a change that changed nothing).
    static func nobody(answering caller: ChannelMember) -> ChannelAudience {
        ChannelAudience(ids: [], standing: [caller.userID: caller])
    }

    init(ids: [Int64], standing: [Int64: ChannelMember]) {
        self.ids = ids
        self.standing = standing
    }

    /// Every member of `channel`, and its standing (two more reads: the creator and the admins, and at most
    /// `largestRestricted` restricted members; past those, restricted members are pushed the channel as plain members
    /// see it, while answers always name their restrictions).
    init(channel: Int64, in tx: any StorageReader) throws {
        self.init(ids: try tx.memberIDs(channel: channel), standing: try Self.standing(of: channel, in: tx))
    }

    static let largestRestricted = 1_000

    static func standing(of channel: Int64, in tx: any StorageReader) throws -> [Int64: ChannelMember] {
        let staff = try tx.members(channel: channel, filter: .admins, offset: 0, limit: ChannelAdministration.largestStaff + 1)
        let restricted = try tx.members(channel: channel, filter: .restricted, offset: 0, limit: largestRestricted)
        return Dictionary((staff + restricted).map { ($0.userID, $0) }, uniquingKeysWith: { first, _ in first })
    }

    var isEmpty: Bool { ids.isEmpty }

    func makeIterator() -> IndexingIterator<[Int64]> { ids.makeIterator() }

    /// `user`'s membership as far as rendering the channel goes: the stored one of the standing, a plain one otherwise.
    func member(_ user: Int64, of channel: ChannelRecord) -> ChannelMember {
        standing[user] ?? ChannelMember(channelID: channel.id, userID: user, role: .member, date: channel.date)
    }
}
