import GRDB

extension Transaction {
    /// Empties the store as a new one starts (messages, peers, holes, read states, the chat list, channel states,
    /// preferences, the operation log, contacts and blocks, drafts and notification settings, member lists, the cursor),
    /// keeping only the transaction version and the master client: what an app chooses on logout when the next user of
    /// the device must not see the last one's data. Every live view reloads after the commit.
    public func removeAllData() throws {
        try flushPendingReadStates()
        try flushPendingChatList()
        for table in ["peers", "initialized_peers", "messages", "message_tags", "holes", "read_states", "chat_list",
                      "channel_states", "preferences", "operation_log", "operation_log_next_local", "operation_log_next_merged",
                      "contacts", "blocked_peers", "drafts", "notification_settings", "legacy_peers", "participants"] {
            try db.execute(sql: "DELETE FROM \(table)")
        }
        let kept = [MetadataKey.transactionVersion, .masterClientID].map { String($0.rawValue) }.joined(separator: ",")
        try db.execute(sql: "DELETE FROM metadata WHERE key NOT IN (\(kept))")
        initializedPeers.removeAll()
        try applySeed(isNewStore: true)
        changes.everythingChanged = true
    }
}
