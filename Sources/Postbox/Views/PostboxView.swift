/// What a view depends on: a commit whose change record touches none of a view's keys never visits it.
public enum ViewKey: Hashable, Sendable {
    case history(PeerID)
    case holes(PeerID)
    case peer(PeerID)
    case readState(PeerID)
    case chatList
    case cursor
    case operationLog(tag: Int32)
    case preference(String)
    case contacts
    case blockedPeers
    case draft(PeerID)
    case notificationSettings(PeerID)
    case participants(PeerID)
    /// Messages of any peer (for views over all history, such as unsent messages).
    case anyHistory
    /// Any peer, read state, draft or chat's notification settings: for a view whose rows are not known when it opens
    /// (a chat list's rows show each chat's title, unread count, draft and mute state).
    case anyPeer
    case anyReadState
    case anyDraft
    case anyNotificationSettings
}

/// A hole an open history view is waiting on: what the hole filler fetches.
public struct HoleRequest: Hashable, Sendable {
    /// The hole space.
    public let key: HoleKey
    /// The ids the hole covers.
    public let hole: ClosedRange<Int32>
    /// Which side of the view's anchor the hole is on: `.older` is filled downward from the anchor (or the hole's
    /// top), `.newer` upward from the anchor (or the hole's bottom), so the part next to what the view shows comes first.
    public let direction: HistoryDirection
    /// How many messages the view shows (an upper bound for one fetch).
    public let count: Int
    /// The view's anchor id (the newest shown message for a view of the latest messages).
    public let anchor: Int32

    /// A request to fill `hole` in `key`'s space from the side of `anchor` that `direction` names, `count` at a
    /// time.
    public init(key: HoleKey, hole: ClosedRange<Int32>, direction: HistoryDirection, count: Int, anchor: Int32) {
        self.key = key
        self.hole = hole
        self.direction = direction
        self.count = count
        self.anchor = anchor
    }
}


/// How a snapshot came about (the update types of Telegram's Postbox views).
public enum ViewUpdateType: Sendable, Equatable {
    /// The first snapshot, loaded when the view was opened.
    case initial
    /// A commit changed what the view shows.
    case generic
    /// A hole the view depended on was filled (history arrived from the server).
    case fillHole
    /// Reloaded after another process committed.
    case updateVisible
}

/// A live view: keeps an immutable snapshot of some part of the store current.
///
/// `load` reads the snapshot from the store; the tracker calls it at registration, after every commit that touched
/// `keys`, and after another process committed. Loading is one targeted query per view, so a snapshot always equals
/// a fresh load from disk.
public protocol PostboxView: AnyObject, Sendable {
    associatedtype Snapshot: Sendable & Equatable
    var keys: Set<ViewKey> { get }
    func load(_ transaction: Transaction) throws -> Snapshot
    /// The holes this snapshot asks to have filled; the union over all open views is `Postbox.historyHoles()`.
    func holeRequests(in snapshot: Snapshot) -> Set<HoleRequest>
}

extension PostboxView {
    public func holeRequests(in snapshot: Snapshot) -> Set<HoleRequest> { [] }
}

extension ChangeRecord {
    /// The keys this commit touched, and whether it filled holes of each peer.
    var touchedKeys: (keys: Set<ViewKey>, filledHolesOf: Set<PeerID>) {
        var keys = Set<ViewKey>()
        var filled = Set<PeerID>()
        for peer in messages.keys { keys.insert(.history(peer)) }
        if !messages.isEmpty { keys.insert(.anyHistory) }
        for peer in peers { keys.insert(.peer(peer)) }
        for peer in readStates { keys.insert(.readState(peer)) }
        if !chatList.isEmpty || chatListHoleChanged { keys.insert(.chatList) }
        for (key, operations) in holes {
            keys.insert(.holes(key.peer))
            if operations.contains(where: { if case .remove = $0 { return true } else { return false } }) { filled.insert(key.peer) }
        }
        if cursorChanged { keys.insert(.cursor) }
        for tag in operationLog.keys { keys.insert(.operationLog(tag: tag)) }
        for key in preferences { keys.insert(.preference(key)) }
        if contactsChanged { keys.insert(.contacts) }
        if blockedChanged { keys.insert(.blockedPeers) }
        for peer in drafts { keys.insert(.draft(peer)) }
        for peer in notificationSettings { keys.insert(.notificationSettings(peer)) }
        for peer in participants { keys.insert(.participants(peer)) }
        if !peers.isEmpty { keys.insert(.anyPeer) }
        if !readStates.isEmpty { keys.insert(.anyReadState) }
        if !drafts.isEmpty { keys.insert(.anyDraft) }
        if !notificationSettings.isEmpty { keys.insert(.anyNotificationSettings) }
        return (keys, filled)
    }
}
