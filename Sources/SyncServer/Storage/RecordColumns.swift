/// The columns of a stored record, declared once for both backends.
///
/// `list` is what every SELECT and multi-row INSERT of the record names, in this order, so a case's raw value is the
/// position its value comes back at: SQLite reads `row[MessageColumn.text]` (by index through its C API; looking
/// columns up by name cost a few percent of the server's time under load), PostgreSQL decodes the row as a tuple in
/// the same order. A column added here is added to both backends' statements at once.
protocol RecordColumns: CaseIterable, RawRepresentable where RawValue == Int32, AllCases == [Self] {}

extension RecordColumns {
    /// The SQL names (`homeDC` → `home_dc`), comma-separated, in declaration order.
    static var list: String {
        allCases.map { column in
            var name = ""
            var previousWasLower = false
            for character in String(describing: column) {
                if character.isUppercase && previousWasLower { name.append("_") }
                previousWasLower = character.isLowercase
                name.append(contentsOf: character.lowercased())
            }
            return name
        }.joined(separator: ", ")
    }
}

/// `users`.
enum UserColumn: Int32, RecordColumns {
    case id, accessHash, phone, firstName, lastName, username, homeDC, bot, about, blockedCount, photo
}

/// `messages`: one row per copy, in its owner's box.
enum MessageColumn: Int32, RecordColumns {
    case owner, id, peerType, peerID, fromID, out, date, text, entities, editDate, counterpartID, action, replyTo, pinned, fwdHeader,
        media, mediaKind, groupedID
}

/// `dialogs`.
enum DialogColumn: Int32, RecordColumns {
    case owner, peerType, peerID, topMessage, topDate, readInboxMaxID, readOutboxMaxID, unreadCount
}

/// `channels`.
enum ChannelColumn: Int32, RecordColumns {
    case id, accessHash, title, about, username, broadcast, creatorID, date, pts, lastEventDate, nextMessageID, readOutboxMaxID,
        defaultBannedRights, photo
}

/// `channel_members`.
enum ChannelMemberColumn: Int32, RecordColumns {
    case channelID, userID, role, date, readInboxMaxID, adminRights, adminRank, promotedBy, bannedRights, bannedUntil, restrictedBy
}

/// `channel_messages`.
enum ChannelMessageColumn: Int32, RecordColumns {
    case channelID, id, fromID, date, text, entities, editDate, action, replyTo, pinned, fwdHeader, media, mediaKind, groupedID
}

/// `user_states` (after `user_id`).
enum UserStateColumn: Int32, RecordColumns {
    case pts, qts, seq, date, nextMessageID
}

/// `user_events` and `channel_events` (after the box's id).
enum EventColumn: Int32, RecordColumns {
    case pts, ptsCount, date, body
}

/// `user_seq_events` (after `user_id`).
enum SeqEventColumn: Int32, RecordColumns {
    case seq, date, body
}

/// `sent_log` (after `random_id` where a statement reads it).
enum SentColumn: Int32, RecordColumns {
    case messageID, pts, date, channelID
}

/// `chats`: basic groups.
enum ChatColumn: Int32, RecordColumns {
    case id, title, creatorID, date, version, defaultBannedRights, photo
}

/// `chat_members`.
enum ChatMemberColumn: Int32, RecordColumns {
    case chatID, userID, inviterID, date
}

/// `contacts`.
enum ContactColumn: Int32, RecordColumns {
    case owner, userID, firstName, lastName, phone, date
}

/// `blocks`.
enum BlockColumn: Int32, RecordColumns {
    case owner, userID, date
}

/// `channel_bans`.
enum ChannelBanColumn: Int32, RecordColumns {
    case channelID, userID, kickedBy, date
}
