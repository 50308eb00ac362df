import Postbox
import TL

/// What one batch of updates changes in the store, accumulated as typed operations and applied in ONE Postbox
/// transaction together with the new cursor (compute, then commit). Redundant operations are merged on the way:
/// a message added then edited is added once in its edited form; added then deleted, it never reaches the store.
public struct AccountMutation: Sendable {
    /// Messages to add, by id (an edit of one of them replaces it).
    private(set) var added: [MessageID: Message] = [:]
    private(set) var edited: [MessageID: Message] = [:]
    private(set) var deleted: Set<MessageID> = []
    /// Common-box ids deleted without their peer (`updateDeleteMessages`): looked up in the store when applied.
    private(set) var deletedByID: Set<Int32> = []
    /// Messages pinned (true) or unpinned, applied after the batch's adds and edits.
    private(set) var pins: [MessageID: Bool] = [:]
    private(set) var readInbox: [PeerID: Int32] = [:]
    private(set) var readOutbox: [PeerID: Int32] = [:]
    private(set) var peers: [PeerID: Peer] = [:]
    /// Users' new names and statuses, applied to the stored users after `peers` (the last of a batch wins).
    private(set) var renames: [PeerID: UserName] = [:]
    private(set) var statuses: [PeerID: API.UserStatus] = [:]
    /// Members who joined (a participant) or left (nil), per chat, in order; and whole lists (the last of a batch wins,
    /// over the joins and departures of that chat).
    private(set) var memberships: [PeerID: [(PeerID, Participant?)]] = [:]
    private(set) var memberLists: [PeerID: [Participant]] = [:]
    /// Peers blocked (true) or unblocked (`updatePeerBlocked`; the last of a batch wins).
    private(set) var blocks: [PeerID: Bool] = [:]
    /// Contacts added or renamed (an entry) or removed (nil); the last of a batch wins.
    private(set) var contacts: [PeerID: ContactEntry?] = [:]
    /// Changes of the pinned chats, in the order the batch gives them (each applies to the order the one before left).
    private(set) var dialogPins: [DialogPinChange] = []
    /// Drafts saved (or removed: nil) and notification settings, per chat; the last of a batch wins.
    private(set) var drafts: [PeerID: Draft?] = [:]
    private(set) var notificationSettings: [PeerID: NotificationSettings] = [:]
    private(set) var kindNotificationSettings: [ChatKind: NotificationSettings] = [:]
    /// Groups' and supergroups' default restrictions (`updateChatDefaultBannedRights`), applied after `peers`.
    private(set) var defaultBannedRights: [PeerID: UInt32] = [:]
    private(set) var resetChannels: Set<PeerID> = []
    /// `differenceTooLong`: private and group histories above what is stored, and the chat list, become holes.
    private(set) var reopensCommonHistories = false
    private(set) var cursor: SyncState?
    /// `cursor` as stored (encoded once, when set).
    public private(set) var cursorBytes: [UInt8]?
    /// Operation-log entries (sends, reads) the batch completes or fails.
    var completedLogEntries: [OperationLogEntry] = []
    var failedLogEntries: [OperationLogEntry] = []
    /// Local copies of completed sends that stay (`AwaitedCopy`), and awaited ones this batch settles.
    var keptLocalCopies: Set<MessageID> = []
    var settledLocalCopies: [MessageID] = []
    /// Account changes the server refused: the store gets back what it held before them.
    var rolledBackChanges: [AccountChangeEntry] = []

    public init() {}

    /// Stores `message`; a later edit or delete in the same batch applies to it before anything is written.
    public mutating func add(_ message: Message) {
        deleted.remove(message.id)
        edited[message.id] = nil
        added[message.id] = message
    }

    /// Replaces a stored message's text and entities.
    public mutating func edit(_ message: Message) {
        if added[message.id] != nil { added[message.id] = message } else { edited[message.id] = message }
    }

    /// Removes messages by store id.
    public mutating func delete(_ ids: [MessageID]) {
        for id in ids {
            edited[id] = nil
            // Removed even when this batch added it: the add may rewrite a message stored before the batch (a chat-list
            // page's top message, then a channel difference that brings it and its delete; the deterministic
            // simulation's seed 13 kept it), and removing an id that is not stored does nothing.
            added[id] = nil
            deleted.insert(id)
        }
    }

    /// Removes messages by common-box id (the server does not say which chat they were in).
    public mutating func delete(commonBoxIDs ids: [Int32]) {
        let ids = Set(ids)
        for id in added.keys where StoreMapping.commonBoxPeers.contains(id.peer.namespace) && ids.contains(id.id) {
            added[id] = nil
            edited[id] = nil
        }
        deletedByID.formUnion(ids)
    }

    /// Pins or unpins stored messages; one added or edited in this batch is changed before it is written. The last
    /// word of a batch wins (pinned then unpinned: unpinned).
    public mutating func pin(_ ids: [MessageID], _ pinned: Bool) {
        for id in ids {
            if var message = added[id] {
                StoreMapping.setPinned(&message, pinned)
                added[id] = message
            } else {
                if var message = edited[id] {
                    StoreMapping.setPinned(&message, pinned)
                    edited[id] = message
                }
                pins[id] = pinned
            }
        }
    }

    /// Moves `peer`'s incoming read mark up to `maxID` (never down).
    public mutating func read(inbox peer: PeerID, maxID: Int32) { readInbox[peer] = max(readInbox[peer] ?? 0, maxID) }
    /// Moves `peer`'s outgoing read mark up to `maxID` (never down).
    public mutating func read(outbox peer: PeerID, maxID: Int32) { readOutbox[peer] = max(readOutbox[peer] ?? 0, maxID) }

    /// Stores the users and chats an update or answer names.
    public mutating func merge(users: [API.User], chats: [API.Chat]) {
        for peer in StoreMapping.peers(users: users, chats: chats) where !(peers[peer.id].map { !$0.isMin && peer.isMin } ?? false) {
            peers[peer.id] = peer   // a min copy does not replace a full one named earlier in the batch
        }
    }

    /// A member joined `chat`: its stored member list, if the account read one, gains them.
    public mutating func memberJoined(_ peer: PeerID, chat: PeerID, inviter: PeerID?, date: Int32) {
        guard peer.fitsStore, chat.fitsStore, inviter?.fitsStore ?? true else { return }
        memberships[chat, default: []].append((peer, Participant(peer: peer, inviter: inviter, date: date)))
    }

    /// `chat`'s whole member list.
    public mutating func setParticipants(_ participants: [Participant], of chat: PeerID) {
        guard chat.fitsStore else { return }
        memberLists[chat] = participants
    }

    /// A member left or was removed from `chat`.
    public mutating func memberLeft(_ peer: PeerID, chat: PeerID) {
        guard peer.fitsStore, chat.fitsStore else { return }
        memberships[chat, default: []].append((peer, nil))
    }

    /// A user's first and last name and username as an `updateUserName` gives them.
    public struct UserName: Sendable, Equatable {
        public var firstName: String
        public var lastName: String
        public var username: String?
    }

    /// Renames a stored user (one not stored yet stays unknown until the server names it with its access hash).
    public mutating func rename(user id: Int64, firstName: String, lastName: String, username: String?) {
        let peer = StoreMapping.user(id)
        guard peer.fitsStore else { return }
        renames[peer] = UserName(firstName: firstName, lastName: lastName, username: username)
    }

    /// Sets a stored user's status (online until, last seen); several in a batch leave the last.
    public mutating func setStatus(user id: Int64, _ status: API.UserStatus) {
        let peer = StoreMapping.user(id)
        guard peer.fitsStore else { return }
        statuses[peer] = status
    }

    /// A peer blocked or unblocked by the account (on any of its devices).
    public mutating func setBlocked(_ peer: PeerID, _ blocked: Bool) {
        guard peer.fitsStore else { return }
        blocks[peer] = blocked
    }

    /// A user added to the account's contacts under a name, or removed (nil), on any of its devices.
    public mutating func setContact(_ peer: PeerID, _ entry: ContactEntry?) {
        guard peer.fitsStore else { return }
        contacts[peer] = .some(entry)
    }

    /// A chat pinned first or unpinned (`updateDialogPinned`), or the whole pinned order (`updatePinnedDialogs`).
    public mutating func changePins(_ change: DialogPinChange) {
        dialogPins.append(change)
    }

    /// A chat's draft as another device saved it (nil: removed).
    public mutating func setDraft(_ peer: PeerID, _ draft: Draft?) {
        guard peer.fitsStore else { return }
        drafts[peer] = .some(draft)
    }

    /// A chat's notification settings as the server tells them.
    public mutating func setNotificationSettings(_ peer: PeerID, _ settings: NotificationSettings) {
        guard peer.fitsStore else { return }
        notificationSettings[peer] = settings
    }

    /// The notification settings of a kind of chat as the server tells them.
    public mutating func setNotificationSettings(_ kind: ChatKind, _ settings: NotificationSettings) {
        kindNotificationSettings[kind] = settings
    }

    /// A group's or supergroup's default restrictions changed.
    public mutating func setDefaultBannedRights(_ peer: PeerID, _ rights: UInt32) {
        guard peer.fitsStore else { return }
        defaultBannedRights[peer] = rights
    }

    /// `channelDifferenceTooLong`: the channel's stored history can no longer be trusted (contiguous or current).
    public mutating func resetHistory(ofChannel id: Int64) { resetChannels.insert(StoreMapping.channel(id)) }

    /// `updates.differenceTooLong`: the common box jumped over updates that were never seen, so every private and
    /// group chat may have messages above its newest stored one, and chats may be missing from the list: those become
    /// holes (filled when a view shows them, and by the chat list's refill), nothing is silently lost.
    public mutating func reopenCommonHistories() { reopensCommonHistories = true }

    /// The state the batch ends in, written with it.
    public mutating func setCursor(_ state: SyncState) {
        cursor = state
        cursorBytes = StoreMapping.cursor(state)
    }

    /// Writes everything inside `transaction`: peers first (messages may name them), then messages, deletes, read
    /// states, history holes and the cursor with each channel's pts. Returns the stored messages its deletes removed,
    /// as they were (`AccountEvent.messagesDeleted`).
    @discardableResult
    public func apply(_ transaction: Transaction) throws -> [Message] {
        try StoreMapping.store(Array(peers.values), in: transaction)
        if !renames.isEmpty || !statuses.isEmpty { try applyUserChanges(transaction) }
        if !memberships.isEmpty { try applyMemberships(transaction) }
        for (chat, list) in memberLists.sorted(by: { $0.key < $1.key }) { try transaction.replaceParticipants(of: chat, list) }
        for (peer, blocked) in blocks.sorted(by: { $0.key < $1.key }) { try transaction.setBlocked(peer, blocked) }
        for (peer, entry) in contacts.sorted(by: { $0.key < $1.key }) {
            if let entry { try transaction.setContact(entry) } else { try transaction.removeContact(peer) }
        }
        if !dialogPins.isEmpty { try transaction.setPinnedChats(DialogPinChange.apply(dialogPins, to: try transaction.pinnedChats())) }
        for (peer, draft) in drafts.sorted(by: { $0.key < $1.key }) { try transaction.setDraft(peer, draft) }
        for (peer, settings) in notificationSettings.sorted(by: { $0.key < $1.key }) { try transaction.setNotificationSettings(peer, settings) }
        for (kind, settings) in kindNotificationSettings.sorted(by: { $0.key.rawValue < $1.key.rawValue }) {
            try transaction.setNotificationSettings(kind, settings)
        }
        if !defaultBannedRights.isEmpty { try applyDefaultBannedRights(transaction) }
        // A reset channel's stored messages may have been edited or deleted in the part the server skipped (TDLib
        // deletes them too): only the latest messages the answer carried (added below) stay, the rest is a hole.
        for peer in resetChannels.sorted() {
            try transaction.clearHistory(peer, namespace: StoreMapping.cloudMessages)
            try transaction.addHole(HoleKey(peer: peer, namespace: StoreMapping.cloudMessages, space: .everywhere), 1...(Int32.max - 1))
        }
        if !added.isEmpty {
            try transaction.addMessages(added.values.sorted { $0.id < $1.id })
            // Messages from updates are the newest of their chat, and the sequence up to them was followed: nothing
            // above the newest is unknown (Telegram's "upper history block"); older history stays a hole until fetched.
            var newest: [PeerID: Int32] = [:]
            for id in added.keys where id.namespace == StoreMapping.cloudMessages { newest[id.peer] = max(newest[id.peer] ?? 0, id.id) }
            for (peer, id) in newest.sorted(by: { $0.key < $1.key }) where id < Int32.max - 1 {
                try transaction.removeHole(HoleKey(peer: peer, namespace: StoreMapping.cloudMessages, space: .everywhere), id...(Int32.max - 1))
            }
        }
        for message in edited.values.sorted(by: { $0.id < $1.id }) {
            _ = try transaction.updateMessage(message.id) { $0 = message }
        }
        for (id, pinned) in pins.sorted(by: { $0.key < $1.key }) where !deleted.contains(id) {
            try transaction.updateMessage(id) { StoreMapping.setPinned(&$0, pinned) }
        }
        var removals = deleted
        if !deletedByID.isEmpty {
            removals.formUnion(try transaction.messageIDs(Array(deletedByID).sorted(), namespace: StoreMapping.cloudMessages,
                                                          peerNamespaces: StoreMapping.commonBoxPeers))
        }
        let removing = removals.sorted()
        let removed = try removing.compactMap { try transaction.message($0) }
        if !removing.isEmpty { try transaction.removeMessages(removing) }
        for (peer, maxID) in readInbox.sorted(by: { $0.key < $1.key }) {
            try transaction.applyIncomingReadMaxID(peer, namespace: StoreMapping.cloudMessages, maxID: maxID)
        }
        for (peer, maxID) in readOutbox.sorted(by: { $0.key < $1.key }) {
            try transaction.applyOutgoingReadMaxID(peer, namespace: StoreMapping.cloudMessages, maxID: maxID)
        }
        if reopensCommonHistories { try reopenHoles(transaction) }
        try applyLogEntries(transaction)
        if let cursor, let cursorBytes {
            try transaction.setCursor(cursorBytes)
            for (channel, pts) in cursor.channels.sorted(by: { $0.key < $1.key }) {
                try transaction.setChannelState(StoreMapping.channel(channel), withUnsafeBytes(of: pts.bigEndian) { Array($0) })
            }
        }
        return removed
    }
}

extension AccountMutation {
    /// Each renamed user's stored peer, and the logged-in user's preference when it is the one renamed (another device
    /// changed the profile); each user's new presence.
    func applyUserChanges(_ transaction: Transaction) throws {
        for peer in Set(renames.keys).union(statuses.keys).sorted() {
            guard case var .user(user)? = try transaction.peer(peer) else { continue }
            if let name = renames[peer] { (user.firstName, user.lastName, user.username) = (name.firstName, name.lastName, name.username) }
            if let status = statuses[peer] { user.presence = StoreMapping.presence(of: status) }
            try transaction.updatePeer(.user(user))
            if let name = renames[peer], let data = try transaction.preference(Account.selfKey),
               case var .user(me)? = try? API.User.deserialize(data), me.id == peer.id {
                (me.firstName, me.lastName, me.username) = (name.firstName, name.lastName.isEmpty ? nil : name.lastName, name.username)
                try transaction.setPreference(Account.selfKey, API.User.user(me).serialized())
            }
        }
    }

    /// Default restrictions onto the stored group or supergroup (one not stored learns them with its next copy).
    func applyDefaultBannedRights(_ transaction: Transaction) throws {
        for (peer, rights) in defaultBannedRights.sorted(by: { $0.key < $1.key }) {
            switch try transaction.peer(peer) {
            case var .group(group)?:
                group.defaultBannedRights = rights
                try transaction.updatePeer(.group(group))
            case var .channel(channel)?:
                channel.defaultBannedRights = rights
                try transaction.updatePeer(.channel(channel))
            default: continue
            }
        }
    }

    /// Joins and departures, in order, for the chats whose member list is stored (one never read stays unread rather than
    /// becoming a partial list); a member already listed keeps their role.
    func applyMemberships(_ transaction: Transaction) throws {
        for (chat, changes) in memberships.sorted(by: { $0.key < $1.key }) where memberLists[chat] == nil {
            let listed = try transaction.participants(of: chat)
            guard !listed.isEmpty else { continue }
            var members = Set(listed.map(\.peer))
            for (peer, joined) in changes {
                if let joined {
                    if members.insert(peer).inserted { try transaction.setParticipant(joined, in: chat) }
                } else if members.remove(peer) != nil {
                    try transaction.removeParticipant(peer, from: chat)
                }
            }
        }
    }

    /// After everything of the batch is stored: above each private and group chat's newest message a hole, and the
    /// whole chat list a hole again.
    func reopenHoles(_ transaction: Transaction) throws {
        for entry in try transaction.chatList(limit: .max) where StoreMapping.commonBoxPeers.contains(entry.peer.namespace) {
            let newest = entry.topMessage?.id.id ?? 0
            guard newest < SeedConfiguration.allIDs.upperBound else { continue }
            try transaction.addHole(HoleKey(peer: entry.peer, namespace: StoreMapping.cloudMessages, space: .everywhere),
                                    (newest + 1)...SeedConfiguration.allIDs.upperBound)
        }
        try transaction.setChatListHole(Int32.max)
    }
}

/// A change of the pinned chats, as the server tells it.
public enum DialogPinChange: Sendable, Equatable {
    /// Pinned first, or unpinned.
    case toggle(PeerID, pinned: Bool)
    /// The whole order.
    case order([PeerID])

    /// The pinned order after `changes`, from `current`.
    static func apply(_ changes: [DialogPinChange], to current: [PeerID]) -> [PeerID] {
        changes.reduce(current) { order, change in
            switch change {
            case let .toggle(peer, pinned): (pinned ? [peer] : []) + order.filter { $0 != peer }
            case let .order(peers): peers
            }
        }
    }
}
