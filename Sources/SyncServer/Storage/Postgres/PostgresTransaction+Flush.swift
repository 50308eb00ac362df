import NIOCore
import PostgresNIO

/// Writing a batch's pending rows (`PostgresBatchMemory.PendingRows`): one statement per table, whatever the
/// number of rows, each column bound as an array and spread back into rows by `unnest`. Nullable columns travel as a
/// value array plus a "present" array, since postgres-nio encodes arrays without NULL elements.
extension PostgresTransaction {
    enum InsertEvents: PostgresSQL {
        static let sql = """
            INSERT INTO user_events (user_id, pts, pts_count, date, body)
            SELECT * FROM unnest($1::bigint[], $2::integer[], $3::integer[], $4::integer[], $5::bytea[])
            """
    }
    enum UpsertStates: PostgresSQL {
        static let sql = """
            INSERT INTO user_states (user_id, pts, qts, seq, date, next_message_id)
            SELECT * FROM unnest($1::bigint[], $2::integer[], $3::integer[], $4::integer[], $5::integer[], $6::integer[])
            ON CONFLICT (user_id) DO UPDATE SET pts = excluded.pts, qts = excluded.qts, seq = excluded.seq, date = excluded.date,
                next_message_id = excluded.next_message_id
            """
    }
    enum UpsertMessages: PostgresSQL {
        static let sql = """
            INSERT INTO messages (\(messageColumns))
            SELECT owner, id, peer_type, peer_id, CASE WHEN has_from THEN from_id END, out, date, text, entities,
                CASE WHEN has_edit THEN edit_date END, CASE WHEN has_counterpart THEN counterpart_id END,
                CASE WHEN has_action THEN action END
            FROM unnest($1::bigint[], $2::integer[], $3::smallint[], $4::bigint[], $5::bigint[], $6::boolean[], $7::boolean[],
                $8::integer[], $9::bytea[], $10::bytea[], $11::integer[], $12::boolean[], $13::integer[], $14::boolean[],
                $15::bytea[], $16::boolean[])
                AS m(owner, id, peer_type, peer_id, from_id, has_from, out, date, text, entities, edit_date, has_edit,
                    counterpart_id, has_counterpart, action, has_action)
            ON CONFLICT (owner, id) DO UPDATE SET peer_type = excluded.peer_type, peer_id = excluded.peer_id, from_id = excluded.from_id,
                out = excluded.out, date = excluded.date, text = excluded.text, entities = excluded.entities,
                edit_date = excluded.edit_date, counterpart_id = excluded.counterpart_id, action = excluded.action
            """
    }
    enum RaiseDialogs: PostgresSQL {
        static let sql = """
            INSERT INTO dialogs (\(dialogColumns))
            SELECT owner, peer_type, peer_id, top_message, top_date, read_inbox_max_id, 0, unread_count
            FROM unnest($1::bigint[], $2::smallint[], $3::bigint[], $4::integer[], $5::integer[], $6::integer[], $7::integer[])
                AS d(owner, peer_type, peer_id, top_message, top_date, read_inbox_max_id, unread_count)
            ON CONFLICT (owner, peer_type, peer_id) DO UPDATE SET
                top_message = GREATEST(dialogs.top_message, excluded.top_message), top_date = GREATEST(dialogs.top_date, excluded.top_date),
                read_inbox_max_id = GREATEST(dialogs.read_inbox_max_id, excluded.read_inbox_max_id),
                unread_count = dialogs.unread_count + excluded.unread_count
            """
    }
    enum InsertSends: PostgresSQL {
        static let sql = """
            INSERT INTO sent_log (user_id, random_id, message_id, pts, date, channel_id)
            SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::integer[], $4::integer[], $5::integer[], $6::bigint[])
            """
    }

    /// Writes every pending row (a no-op when none are pending).
    func flush() throws {
        let rows = memory.pending
        guard !rows.isEmpty else { return }
        try recordingFailure {
            if !rows.events.isEmpty { try writeEvents(rows.events) }
            if !rows.states.isEmpty { try writeStates(rows.states) }
            if !rows.messages.isEmpty { try writeMessages(Array(rows.messages.values)) }
            if !rows.dialogs.isEmpty { try writeDialogs(rows.dialogs) }
            if !rows.sends.isEmpty { try writeSends(rows.sends) }
        }
        memory.flushed()
        databaseChanges += 1
    }

    private func writeEvents(_ events: [(user: Int64, event: StoredEvent)]) throws {
        try session.rows(InsertEvents.self, events.map(\.user), events.map(\.event.pts), events.map(\.event.ptsCount),
            events.map(\.event.date), events.map { ByteBuffer(bytes: $0.event.update) })
    }

    private func writeStates(_ states: [Int64: UserState]) throws {
        let rows = Array(states)
        try session.rows(UpsertStates.self, rows.map(\.key), rows.map(\.value.pts), rows.map(\.value.qts), rows.map(\.value.seq),
            rows.map(\.value.date), rows.map(\.value.nextMessageID))
    }

    private func writeMessages(_ messages: [StoredMessage]) throws {
        try session.rows(UpsertMessages.self, messages.map(\.owner), messages.map(\.id), messages.map { Int16($0.peer.typeCode) },
            messages.map(\.peer.id), messages.map { $0.fromID ?? 0 }, messages.map { $0.fromID != nil }, messages.map(\.out),
            messages.map(\.date), messages.map { ByteBuffer(string: $0.text) }, messages.map { ByteBuffer(bytes: $0.entities) },
            messages.map { $0.editDate ?? 0 }, messages.map { $0.editDate != nil },
            messages.map { $0.counterpartID ?? 0 }, messages.map { $0.counterpartID != nil },
            messages.map { ByteBuffer(bytes: $0.action ?? []) }, messages.map { $0.action != nil })
    }

    private func writeDialogs(_ dialogs: [PostgresBatchMemory.DialogKey: PostgresBatchMemory.DialogRaise]) throws {
        let rows = Array(dialogs)
        try session.rows(RaiseDialogs.self, rows.map(\.key.owner), rows.map { Int16($0.key.peer.typeCode) }, rows.map(\.key.peer.id),
            rows.map(\.value.topMessage), rows.map(\.value.date), rows.map(\.value.readInboxTo), rows.map(\.value.unread))
    }

    private func writeSends(_ sends: [(key: PostgresBatchMemory.SendKey, record: SentRecord)]) throws {
        try session.rows(InsertSends.self, sends.map(\.key.user), sends.map(\.key.randomID), sends.map(\.record.messageID),
            sends.map(\.record.pts), sends.map(\.record.date), sends.map { $0.record.channelID ?? 0 })
    }
}
