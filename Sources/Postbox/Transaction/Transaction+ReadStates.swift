import GRDB

extension Transaction {
    /// The peer's read state in `namespace` (all zero when never read).
    public func readState(_ peer: PeerID, namespace: Int32) throws -> ReadState {
        if let pending = pendingReadStates[ReadStateKey(peer: peer, namespace: namespace)] { return pending }
        guard let row = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM read_states WHERE peer = ? AND namespace = ?"),
                                         arguments: [peer.rawValue, namespace])
        else { return ReadState() }
        return ReadState(maxIncomingReadID: row["max_incoming_read"], maxOutgoingReadID: row["max_outgoing_read"],
                         unreadCount: row["unread_count"])
    }

    func storeReadState(_ peer: PeerID, namespace: Int32, _ state: ReadState) throws {
        pendingReadStates[ReadStateKey(peer: peer, namespace: namespace)] = state
        changes.readStates.insert(peer)
    }

    func flushPendingReadStates() throws {
        guard !pendingReadStates.isEmpty else { return }
        let statement = try db.cachedStatement(sql: """
            INSERT INTO read_states (peer, namespace, max_incoming_read, max_outgoing_read, unread_count) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(peer, namespace) DO UPDATE SET max_incoming_read = excluded.max_incoming_read,
                max_outgoing_read = excluded.max_outgoing_read, unread_count = excluded.unread_count
            """)
        for (key, state) in pendingReadStates {
            try statement.execute(arguments: [key.peer.rawValue, key.namespace, state.maxIncomingReadID, state.maxOutgoingReadID,
                                              state.unreadCount])
        }
        pendingReadStates.removeAll()
    }

    /// Marks incoming messages up to `maxID` read (never moves the mark back) and recounts the unread incoming
    /// messages above it that are stored locally.
    public func applyIncomingReadMaxID(_ peer: PeerID, namespace: Int32, maxID: Int32) throws {
        var state = try readState(peer, namespace: namespace)
        guard maxID > state.maxIncomingReadID else { return }
        state.maxIncomingReadID = maxID
        state.unreadCount = Int32(try Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM messages WHERE peer = ? AND namespace = ? AND id > ? AND (flags & ?) != 0
            """), arguments: [peer.rawValue, namespace, maxID, MessageFlags.incoming.rawValue]) ?? 0)
        try storeReadState(peer, namespace: namespace, state)
    }

    /// Records that the other side read our messages up to `maxID` (never moves back).
    public func applyOutgoingReadMaxID(_ peer: PeerID, namespace: Int32, maxID: Int32) throws {
        var state = try readState(peer, namespace: namespace)
        guard maxID > state.maxOutgoingReadID else { return }
        state.maxOutgoingReadID = maxID
        try storeReadState(peer, namespace: namespace, state)
    }

    /// Sets the read state as the server reports it (a difference or dialog list), unread count included.
    public func setReadState(_ peer: PeerID, namespace: Int32, _ state: ReadState) throws {
        try storeReadState(peer, namespace: namespace, state)
    }
}

extension Transaction {
    /// The peer's chat-list entry, nil when it has none.
    public func chatListEntry(_ peer: PeerID) throws -> ChatListEntry? {
        if let pending = pendingChatList[peer] { return pending }
        return try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM chat_list WHERE peer = ?"), arguments: [peer.rawValue])
            .map(Self.chatListEntry(from:))
    }

    /// Included chats: pinned first (by pin order), then by top message, newest first.
    public func chatList(limit: Int) throws -> [ChatListEntry] {
        try flushPendingChatList()
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT * FROM chat_list WHERE included = 1
            ORDER BY pinned IS NULL, pinned, top_timestamp DESC, top_id DESC LIMIT ?
            """), arguments: [limit]).map(Self.chatListEntry(from:))
    }

    /// Shows or hides the peer in the chat list.
    public func setChatListInclusion(_ peer: PeerID, included: Bool) throws {
        var entry = try chatListEntry(peer) ?? ChatListEntry(peer: peer, topMessage: nil, included: included, pinnedIndex: nil)
        entry.included = included
        try storeChatListEntry(entry)
    }

    /// Pins the peer at `index` (lower first), or unpins it (nil).
    public func setPinned(_ peer: PeerID, index: Int32?) throws {
        var entry = try chatListEntry(peer) ?? ChatListEntry(peer: peer, topMessage: nil, included: true, pinnedIndex: nil)
        entry.pinnedIndex = index
        try storeChatListEntry(entry)
    }

    /// The pinned chats, in pin order.
    public func pinnedChats() throws -> [PeerID] {
        try flushPendingChatList()
        return try Int64.fetchAll(db.cachedStatement(sql: "SELECT peer FROM chat_list WHERE pinned IS NOT NULL ORDER BY pinned"))
            .map(PeerID.init(rawValue:))
    }

    /// Pins exactly `order`, first first; every other chat is unpinned.
    public func setPinnedChats(_ order: [PeerID]) throws {
        for peer in try pinnedChats() where !order.contains(peer) { try setPinned(peer, index: nil) }
        for (index, peer) in order.enumerated() { try setPinned(peer, index: Int32(index)) }
    }

    func raiseTopMessage(_ index: MessageIndex) throws {
        var entry = try chatListEntry(index.id.peer) ?? ChatListEntry(peer: index.id.peer, topMessage: nil, included: true, pinnedIndex: nil)
        if let top = entry.topMessage, top >= index { return }
        entry.topMessage = index
        try storeChatListEntry(entry)
    }

    func recomputeTopMessage(_ peer: PeerID) throws {
        guard var entry = try chatListEntry(peer) else { return }
        let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT id, timestamp FROM messages WHERE peer = ? AND namespace = ? ORDER BY timestamp DESC, id DESC LIMIT 1
            """), arguments: [peer.rawValue, seed.chatListNamespace])
        entry.topMessage = row.map {
            MessageIndex(id: MessageID(peer: peer, namespace: seed.chatListNamespace, id: $0["id"]), timestamp: $0["timestamp"])
        }
        try storeChatListEntry(entry)
    }

    private func storeChatListEntry(_ entry: ChatListEntry) throws {
        pendingChatList[entry.peer] = entry
        changes.chatList.insert(entry.peer)
    }

    func flushPendingChatList() throws {
        guard !pendingChatList.isEmpty else { return }
        let statement = try db.cachedStatement(sql: """
            INSERT INTO chat_list (peer, top_namespace, top_id, top_timestamp, included, pinned) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(peer) DO UPDATE SET top_namespace = excluded.top_namespace, top_id = excluded.top_id,
                top_timestamp = excluded.top_timestamp, included = excluded.included, pinned = excluded.pinned
            """)
        for entry in pendingChatList.values {
            try statement.execute(arguments: [entry.peer.rawValue, entry.topMessage?.id.namespace, entry.topMessage?.id.id,
                                              entry.topMessage?.timestamp, entry.included, entry.pinnedIndex])
        }
        pendingChatList.removeAll()
    }

    static func chatListEntry(from row: Row) -> ChatListEntry {
        let peer = PeerID(rawValue: row["peer"])
        let namespace: Int32? = row["top_namespace"]
        let id: Int32? = row["top_id"]
        let timestamp: Int32? = row["top_timestamp"]
        var top: MessageIndex?
        if let namespace, let id, let timestamp { top = MessageIndex(id: MessageID(peer: peer, namespace: namespace, id: id), timestamp: timestamp) }
        return ChatListEntry(peer: peer, topMessage: top, included: row["included"], pinnedIndex: row["pinned"])
    }
}
