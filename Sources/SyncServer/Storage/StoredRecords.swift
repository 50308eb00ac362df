/// Each stored record's one codec (`StoredRecord`), by its typed columns (`RecordColumns`): both backends read and
/// write rows through these.

extension UserRecord: StoredRecord {
    init<Cells: RecordCells>(_ row: RecordRow<UserColumn, Cells>) throws(StoredRowError) {
        self.init(id: try row.int64(.id), accessHash: try row.int64(.accessHash), phone: try row.text(.phone),
                  firstName: try row.text(.firstName), lastName: try row.text(.lastName), username: try row.optionalText(.username),
                  homeDC: try row.int32(.homeDC), isBot: try row.bool(.bot), about: try row.text(.about),
                  blockedCount: try row.int32(.blockedCount), photo: try row.optionalBytes(.photo))
    }

    func encode(to values: inout some RecordValues) {
        values.add(id)
        values.add(accessHash)
        values.add(text: phone)
        values.add(text: firstName)
        values.add(text: lastName)
        values.add(text: username)
        values.add(homeDC)
        values.add(isBot)
        values.add(text: about)
        values.add(blockedCount)
        values.add(photo)
    }
}

extension UserState: StoredRecord {
    init<Cells: RecordCells>(_ row: RecordRow<UserStateColumn, Cells>) throws(StoredRowError) {
        self.init(pts: try row.int32(.pts), qts: try row.int32(.qts), seq: try row.int32(.seq), date: try row.int32(.date),
                  nextMessageID: try row.int32(.nextMessageID))
    }

    func encode(to values: inout some RecordValues) {
        values.add(pts)
        values.add(qts)
        values.add(seq)
        values.add(date)
        values.add(nextMessageID)
    }
}

extension StoredEvent: StoredRecord {
    init<Cells: RecordCells>(_ row: RecordRow<EventColumn, Cells>) throws(StoredRowError) {
        self.init(pts: try row.int32(.pts), ptsCount: try row.int32(.ptsCount), date: try row.int32(.date), update: try row.bytes(.body))
    }

    func encode(to values: inout some RecordValues) {
        values.add(pts)
        values.add(ptsCount)
        values.add(date)
        values.add(update)
    }
}

extension StoredSeqEvent: StoredRecord {
    init<Cells: RecordCells>(_ row: RecordRow<SeqEventColumn, Cells>) throws(StoredRowError) {
        self.init(seq: try row.int32(.seq), date: try row.int32(.date), update: try row.bytes(.body))
    }

    func encode(to values: inout some RecordValues) {
        values.add(seq)
        values.add(date)
        values.add(update)
    }
}

extension StoredMessage: StoredRecord {
    init<Cells: RecordCells>(_ row: RecordRow<MessageColumn, Cells>) throws(StoredRowError) {
        self.init(owner: try row.int64(.owner), id: try row.int32(.id), peer: try row.peer(type: .peerType, id: .peerID),
                  fromID: try row.optionalInt64(.fromID), out: try row.bool(.out), date: try row.int32(.date), text: try row.utf8(.text),
                  entities: try row.bytes(.entities), editDate: try row.optionalInt32(.editDate),
                  counterpartID: try row.optionalInt32(.counterpartID), action: try row.optionalBytes(.action),
                  replyTo: try row.optionalInt32(.replyTo), pinned: try row.bool(.pinned), forward: try row.optionalBytes(.fwdHeader),
                  media: try row.optionalBytes(.media), mediaKind: MediaKind(code: try row.int64(.mediaKind)),
                  groupedID: try row.optionalInt64(.groupedID))
    }

    func encode(to values: inout some RecordValues) {
        values.add(owner)
        values.add(id)
        values.add(code: peer.typeCode)
        values.add(peer.id)
        values.add(fromID)
        values.add(out)
        values.add(date)
        values.add(utf8: text)
        values.add(entities)
        values.add(editDate)
        values.add(counterpartID)
        values.add(action)
        values.add(replyTo)
        values.add(pinned)
        values.add(forward)
        values.add(media)
        values.add(code: mediaKind.rawValue)
        values.add(groupedID)
    }
}

extension DialogRecord: StoredRecord {
    init<Cells: RecordCells>(_ row: RecordRow<DialogColumn, Cells>) throws(StoredRowError) {
        self.init(owner: try row.int64(.owner), peer: try row.peer(type: .peerType, id: .peerID), topMessage: try row.int32(.topMessage),
                  topDate: try row.int32(.topDate), readInboxMaxID: try row.int32(.readInboxMaxID),
                  readOutboxMaxID: try row.int32(.readOutboxMaxID), unreadCount: try row.int32(.unreadCount))
    }

    func encode(to values: inout some RecordValues) {
        values.add(owner)
        values.add(code: peer.typeCode)
        values.add(peer.id)
        values.add(topMessage)
        values.add(topDate)
        values.add(readInboxMaxID)
        values.add(readOutboxMaxID)
        values.add(unreadCount)
    }
}

extension SentRecord: StoredRecord {
    /// A send to a private chat or a group keeps no channel (NULL or 0, as the backend wrote it).
    init<Cells: RecordCells>(_ row: RecordRow<SentColumn, Cells>) throws(StoredRowError) {
        let channel = try row.optionalInt64(.channelID) ?? 0
        self.init(messageID: try row.int32(.messageID), pts: try row.int32(.pts), date: try row.int32(.date),
                  channelID: channel == 0 ? nil : channel)
    }

    func encode(to values: inout some RecordValues) {
        values.add(messageID)
        values.add(pts)
        values.add(date)
        values.add(channelID ?? 0)
    }
}

extension ChannelRecord: StoredRecord {
    init<Cells: RecordCells>(_ row: RecordRow<ChannelColumn, Cells>) throws(StoredRowError) {
        self.init(id: try row.int64(.id), accessHash: try row.int64(.accessHash), title: try row.text(.title), about: try row.text(.about),
                  username: try row.optionalText(.username), broadcast: try row.bool(.broadcast), creatorID: try row.int64(.creatorID),
                  date: try row.int32(.date), pts: try row.int32(.pts), lastEventDate: try row.int32(.lastEventDate),
                  nextMessageID: try row.int32(.nextMessageID), readOutboxMaxID: try row.int32(.readOutboxMaxID),
                  defaultBannedRights: UInt32(truncatingIfNeeded: try row.int64(.defaultBannedRights)), photo: try row.optionalBytes(.photo))
    }

    func encode(to values: inout some RecordValues) {
        values.add(id)
        values.add(accessHash)
        values.add(text: title)
        values.add(text: about)
        values.add(text: username)
        values.add(broadcast)
        values.add(creatorID)
        values.add(date)
        values.add(pts)
        values.add(lastEventDate)
        values.add(nextMessageID)
        values.add(readOutboxMaxID)
        values.add(Int64(defaultBannedRights))
        values.add(photo)
    }
}

extension ChannelMember: StoredRecord {
    /// An unknown role code reads as a plain member (the least rights).
    init<Cells: RecordCells>(_ row: RecordRow<ChannelMemberColumn, Cells>) throws(StoredRowError) {
        self.init(channelID: try row.int64(.channelID), userID: try row.int64(.userID),
                  role: Role(rawValue: Int(try row.int64(.role))) ?? .member, date: try row.int32(.date),
                  readInboxMaxID: try row.int32(.readInboxMaxID),
                  adminRights: UInt32(truncatingIfNeeded: try row.int64(.adminRights)), adminRank: try row.optionalText(.adminRank),
                  promotedBy: try row.optionalInt64(.promotedBy),
                  bannedRights: UInt32(truncatingIfNeeded: try row.int64(.bannedRights)), bannedUntil: try row.int32(.bannedUntil),
                  restrictedBy: try row.optionalInt64(.restrictedBy))
    }

    func encode(to values: inout some RecordValues) {
        values.add(channelID)
        values.add(userID)
        values.add(code: role.rawValue)
        values.add(date)
        values.add(readInboxMaxID)
        values.add(Int64(adminRights))
        values.add(text: adminRank)
        values.add(promotedBy)
        values.add(Int64(bannedRights))
        values.add(bannedUntil)
        values.add(restrictedBy)
    }
}

extension ChannelMessage: StoredRecord {
    init<Cells: RecordCells>(_ row: RecordRow<ChannelMessageColumn, Cells>) throws(StoredRowError) {
        self.init(channelID: try row.int64(.channelID), id: try row.int32(.id), fromID: try row.int64(.fromID), date: try row.int32(.date),
                  text: try row.utf8(.text), entities: try row.bytes(.entities), editDate: try row.optionalInt32(.editDate),
                  action: try row.bytes(.action), replyTo: try row.optionalInt32(.replyTo),
                  pinned: try row.bool(.pinned), forward: try row.optionalBytes(.fwdHeader), media: try row.optionalBytes(.media),
                  mediaKind: MediaKind(code: try row.int64(.mediaKind)), groupedID: try row.optionalInt64(.groupedID))
    }

    func encode(to values: inout some RecordValues) {
        values.add(channelID)
        values.add(id)
        values.add(fromID)
        values.add(date)
        values.add(utf8: text)
        values.add(entities)
        values.add(editDate)
        values.add(action)
        values.add(replyTo)
        values.add(pinned)
        values.add(forward)
        values.add(media)
        values.add(code: mediaKind.rawValue)
        values.add(groupedID)
    }
}

extension ChatRecord: StoredRecord {
    init<Cells: RecordCells>(_ row: RecordRow<ChatColumn, Cells>) throws(StoredRowError) {
        self.init(id: try row.int64(.id), title: try row.text(.title), creatorID: try row.int64(.creatorID), date: try row.int32(.date),
                  version: try row.int32(.version), defaultBannedRights: UInt32(truncatingIfNeeded: try row.int64(.defaultBannedRights)),
                  photo: try row.optionalBytes(.photo))
    }

    func encode(to values: inout some RecordValues) {
        values.add(id)
        values.add(text: title)
        values.add(creatorID)
        values.add(date)
        values.add(version)
        values.add(Int64(defaultBannedRights))
        values.add(photo)
    }
}

extension ChatMember: StoredRecord {
    init<Cells: RecordCells>(_ row: RecordRow<ChatMemberColumn, Cells>) throws(StoredRowError) {
        self.init(chatID: try row.int64(.chatID), userID: try row.int64(.userID), inviterID: try row.int64(.inviterID),
                  date: try row.int32(.date))
    }

    func encode(to values: inout some RecordValues) {
        values.add(chatID)
        values.add(userID)
        values.add(inviterID)
        values.add(date)
    }
}

extension ContactRecord: StoredRecord {
    init<Cells: RecordCells>(_ row: RecordRow<ContactColumn, Cells>) throws(StoredRowError) {
        self.init(owner: try row.int64(.owner), userID: try row.int64(.userID), firstName: try row.text(.firstName),
                  lastName: try row.text(.lastName), phone: try row.text(.phone), date: try row.int32(.date))
    }

    func encode(to values: inout some RecordValues) {
        values.add(owner)
        values.add(userID)
        values.add(text: firstName)
        values.add(text: lastName)
        values.add(text: phone)
        values.add(date)
    }
}

extension BlockRecord: StoredRecord {
    init<Cells: RecordCells>(_ row: RecordRow<BlockColumn, Cells>) throws(StoredRowError) {
        self.init(owner: try row.int64(.owner), userID: try row.int64(.userID), date: try row.int32(.date))
    }

    func encode(to values: inout some RecordValues) {
        values.add(owner)
        values.add(userID)
        values.add(date)
    }
}

extension ChannelBan: StoredRecord {
    init<Cells: RecordCells>(_ row: RecordRow<ChannelBanColumn, Cells>) throws(StoredRowError) {
        self.init(channelID: try row.int64(.channelID), userID: try row.int64(.userID), kickedBy: try row.int64(.kickedBy),
                  date: try row.int32(.date))
    }

    func encode(to values: inout some RecordValues) {
        values.add(channelID)
        values.add(userID)
        values.add(kickedBy)
        values.add(date)
    }
}
