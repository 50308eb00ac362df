import Postbox
import TL

/// The account's profile: names, username and bio (`account.updateProfile`, `account.checkUsername`,
/// `account.updateUsername`), its online status (`account.updateStatus`), and another user's bio (`users.getFullUser`)
/// and status.
extension Account {
    /// Replaces the fields given (nil: unchanged; an empty `lastName` or `about` removes it). The names show at once (the
    /// stored user); the change goes through the operation log, and the server's answer replaces the stored user (its
    /// other devices learn the new name as `updateUserName`).
    public func setProfile(firstName: String? = nil, lastName: String? = nil, about: String? = nil) async throws {
        try await queue(.profile(firstName: firstName, lastName: lastName, about: about))
        if let firstName { user?.firstName = firstName }
        if let lastName { user?.lastName = lastName.isEmpty ? nil : lastName }
    }

    /// Whether `username` is free for this account (the server refuses one Telegram would not allow with
    /// `USERNAME_INVALID`).
    public func isUsernameAvailable(_ username: String) async throws -> Bool {
        try await network.send(API.functions.account.CheckUsername(username: username))
    }

    /// Sets the account's username, or removes it (nil), at once here and through the operation log. A taken one is
    /// refused by the server (`USERNAME_OCCUPIED`): the old one comes back and `AccountEvent.changeRefused` says why.
    public func setUsername(_ username: String?) async throws {
        try await queue(.username(username))
        user?.username = username.flatMap { $0.isEmpty ? nil : $0 }
    }

    /// A user's bio (`users.getFullUser`), nil when it has none; the bio and the users the answer names are stored
    /// (`storedAbout` reads it back without the network).
    public func about(_ peer: PeerID) async throws -> String? {
        guard case let .userFull(full) = try await network.send(API.functions.users.GetFullUser(id: try await inputUser(peer))),
              case let .userFull(details) = full.fullUser else { return nil }
        let peers = StoreMapping.peers(users: full.users, chats: full.chats)
        _ = try await postbox.transaction { transaction in
            try StoreMapping.store(peers, in: transaction)
            try transaction.setAbout(peer, details.about)
        }
        return details.about
    }

    /// A user's bio as last stored (by `about`, or by this account's own profile change), nil when none is.
    public func storedAbout(_ peer: PeerID) async throws -> String? {
        try await postbox.read { try $0.about(peer) }
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

    /// The logged-in user as its preference and its stored peer, in one transaction.
    func storeSelf(_ me: API.User) async throws {
        let data = me.serialized(), peers = StoreMapping.peers(users: [me], chats: [])
        _ = try await postbox.transaction { transaction in
            try transaction.setPreference(Self.selfKey, data)
            try StoreMapping.store(peers, in: transaction)
        }
    }
}
