import TL

/// The peers the client can address: users and channels whose access hash it holds (from the store, or from the
/// `users`/`chats` of earlier containers and differences). An update naming a peer outside this set and outside its
/// own container is incomplete (core.telegram.org/api/updates#recovering-gaps): the sequencer fetches a difference
/// instead of delivering it.
public struct PeerKnowledge: Equatable, Sendable {
    /// User id → access hash.
    public private(set) var users: [Int64: Int64] = [:]
    /// Channel id → access hash.
    public private(set) var channels: [Int64: Int64] = [:]

    /// Knowledge starting from the given access hashes.
    public init(users: [Int64: Int64] = [:], channels: [Int64: Int64] = [:]) {
        self.users = users
        self.channels = channels
    }

    /// Whether a short message from or to `id` can be completed (the client has the user).
    public func knowsUser(_ id: Int64) -> Bool { users[id] != nil }

    /// Records a user the client can address (the account itself, or one from the store).
    public mutating func learnUser(_ id: Int64, accessHash: Int64 = 0) {
        users[id] = accessHash
    }
    /// Records a channel the client can address (one from the store).
    public mutating func learnChannel(_ id: Int64, accessHash: Int64) {
        channels[id] = accessHash
    }

    /// The hash a `getChannelDifference` for `id` needs, nil when the channel is unknown.
    public func accessHash(ofChannel id: Int64) -> Int64? { channels[id] }

    /// Takes the access hashes of full (non-min) users and channels.
    public mutating func ingest(users: [API.User], chats: [API.Chat]) {
        for user in users {
            if case let .user(value) = user, !value.min, let hash = value.accessHash { self.users[value.id] = hash }
        }
        for chat in chats {
            switch chat {
            case let .channel(value) where !value.min: if let hash = value.accessHash { channels[value.id] = hash }
            case let .channelForbidden(value): channels[value.id] = value.accessHash
            default: break
            }
        }
    }

    /// Whether `peer` can be resolved with this knowledge plus a container's own `users` and `chats` (min entries
    /// are enough to show a message). Basic groups need no access hash.
    func resolves(_ peer: API.Peer, users: Set<Int64>, channels: Set<Int64>) -> Bool {
        switch peer {
        case let .peerUser(value): knowsUser(value.userId) || users.contains(value.userId)
        case .peerChat: true
        case let .peerChannel(value): accessHash(ofChannel: value.channelId) != nil || channels.contains(value.channelId)
        }
    }
}
