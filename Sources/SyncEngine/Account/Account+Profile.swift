import Postbox
import TL

/// The account's profile: names, username and bio (`account.updateProfile`, `account.checkUsername`,
/// `account.updateUsername`), its online status (`account.updateStatus`), and another user's bio (`users.getFullUser`)
/// and status.
extension Account {
    /// Replaces the fields given (nil: unchanged; an empty `lastName` or `about` removes it). Returns the account's user
    /// as the server now has it, which is also stored (its other devices learn the new name as `updateUserName`).
    @discardableResult
    public func setProfile(firstName: String? = nil, lastName: String? = nil, about: String? = nil) async throws -> API.User.User {
        try await rememberSelf(network.send(API.functions.account.UpdateProfile(firstName: firstName, lastName: lastName, about: about)))
    }

    /// Whether `username` is free for this account (the server refuses one Telegram would not allow with
    /// `USERNAME_INVALID`).
    public func isUsernameAvailable(_ username: String) async throws -> Bool {
        try await network.send(API.functions.account.CheckUsername(username: username))
    }

    /// Sets the account's username, or removes it (nil). The server refuses a taken one with `USERNAME_OCCUPIED`.
    @discardableResult
    public func setUsername(_ username: String?) async throws -> API.User.User {
        try await rememberSelf(network.send(API.functions.account.UpdateUsername(username: username ?? "")))
    }

    /// A user's bio (`users.getFullUser`), nil when it has none; the user is stored as the answer names it.
    public func about(_ peer: PeerID) async throws -> String? {
        guard case let .userFull(full) = try await network.send(API.functions.users.GetFullUser(id: try await inputUser(peer))),
              case let .userFull(details) = full.fullUser else { return nil }
        let peers = StoreMapping.peers(users: full.users, chats: full.chats)
        _ = try await postbox.transaction { transaction in
            try StoreMapping.store(peers, in: transaction)
        }
        return details.about
    }

    /// `account.updateStatus`: online (for about five minutes; call again while the app is in use) or offline from now.
    /// Everyone with a dialog with the account is told.
    public func setOnline(_ online: Bool) async throws {
        _ = try await network.send(API.functions.account.UpdateStatus(offline: !online))
    }

    /// A stored user's presence as the server last told it (`updateUserStatus`, or the user as an answer named it);
    /// `PeerView` and `PresencesView` follow it live.
    public func presence(of peer: PeerID) async throws -> Presence? {
        guard case let .user(user)? = try await postbox.read({ try $0.peer(peer) }) else { return nil }
        return user.presence
    }

    /// The answer of a profile change: kept as the logged-in user, its stored peer and preference.
    private func rememberSelf(_ answer: API.User) async throws -> API.User.User {
        guard case let .user(updated) = answer else { throw AccountError.unsupportedPeer("the server answered no user") }
        try await storeSelf(answer)
        user = updated
        return updated
    }

    /// The logged-in user as its preference and its stored peer, in one transaction.
    func storeSelf(_ me: API.User) async throws {
        let data = me.serialized(), peers = StoreMapping.peers(users: [me], chats: [])
        _ = try await postbox.transaction { transaction in
            try transaction.setPreference(Self.selfKey, data)
            try StoreMapping.store(peers, in: transaction)
        }
    }
}
