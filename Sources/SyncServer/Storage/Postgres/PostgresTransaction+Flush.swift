import NIOCore
import PostgresNIO

/// Writing a batch's pending rows (`PendingWrites.PendingRows`) in one round trip: one statement whose
/// data-modifying `WITH` clauses insert into every table, each column bound as an array and spread back into rows by
/// `unnest` (an empty array inserts nothing), and whose main query sends the batch's announcements (`pg_notify`,
/// delivered with the COMMIT). Nullable columns travel as a value array plus a "present" array, since postgres-nio
/// encodes arrays without NULL elements.
///
/// Before anything is written, `expected` locks the rows of the boxes the batch took from the cache (`BoxStateCache`),
/// in id order, and `synccore_expect_states` fails the statement (SQLSTATE 40001) unless every one still holds the
/// cached values; every other clause waits for that check (`WHERE (SELECT ok FROM expected)` is evaluated before their
/// first row), so a failed check writes nothing.
extension PostgresTransaction {
    enum FlushRows: PostgresSQL {
        static let sql = """
            WITH expected AS MATERIALIZED (
                SELECT synccore_expect_states((
                    SELECT count(*) FROM (
                        SELECT s.user_id FROM user_states s
                        JOIN unnest($42::bigint[], $43::integer[], $44::integer[], $45::integer[], $46::integer[], $47::integer[])
                            AS x (user_id, pts, qts, seq, date, next_message_id) ON s.user_id = x.user_id
                        WHERE (s.pts, s.qts, s.seq, s.date, s.next_message_id) = (x.pts, x.qts, x.seq, x.date, x.next_message_id)
                        ORDER BY s.user_id FOR UPDATE OF s
                    ) AS unchanged), cardinality($42::bigint[])) AS ok
            ), events AS (
                INSERT INTO user_events (user_id, pts, pts_count, date, body)
                SELECT * FROM unnest($1::bigint[], $2::integer[], $3::integer[], $4::integer[], $5::bytea[]) WHERE (SELECT ok FROM expected)
            ), states AS (
                INSERT INTO user_states (user_id, pts, qts, seq, date, next_message_id)
                SELECT * FROM unnest($6::bigint[], $7::integer[], $8::integer[], $9::integer[], $10::integer[], $11::integer[])
                WHERE (SELECT ok FROM expected)
                ON CONFLICT (user_id) DO UPDATE SET pts = excluded.pts, qts = excluded.qts, seq = excluded.seq, date = excluded.date,
                    next_message_id = excluded.next_message_id
            ), messages AS (
                INSERT INTO messages (\(messageColumns))
                SELECT owner, id, peer_type, peer_id, CASE WHEN has_from THEN from_id END, out, date, text, entities,
                    CASE WHEN has_edit THEN edit_date END, CASE WHEN has_counterpart THEN counterpart_id END,
                    CASE WHEN has_action THEN action END, CASE WHEN has_reply THEN reply_to END, pinned,
                    CASE WHEN has_fwd_header THEN fwd_header END, CASE WHEN has_media THEN media END, media_kind,
                    CASE WHEN has_grouped_id THEN grouped_id END
                FROM unnest($12::bigint[], $13::integer[], $14::smallint[], $15::bigint[], $16::bigint[], $17::boolean[], $18::boolean[],
                    $19::integer[], $20::bytea[], $21::bytea[], $22::integer[], $23::boolean[], $24::integer[], $25::boolean[],
                    $26::bytea[], $27::boolean[], $48::integer[], $49::boolean[], $50::boolean[], $51::bytea[], $52::boolean[],
                    $53::bytea[], $54::boolean[], $55::smallint[], $56::bigint[], $57::boolean[])
                    AS m(owner, id, peer_type, peer_id, from_id, has_from, out, date, text, entities, edit_date, has_edit,
                        counterpart_id, has_counterpart, action, has_action, reply_to, has_reply, pinned, fwd_header, has_fwd_header,
                        media, has_media, media_kind, grouped_id, has_grouped_id)
                WHERE (SELECT ok FROM expected)
                ON CONFLICT (owner, id) DO UPDATE SET peer_type = excluded.peer_type, peer_id = excluded.peer_id,
                    from_id = excluded.from_id, out = excluded.out, date = excluded.date, text = excluded.text,
                    entities = excluded.entities, edit_date = excluded.edit_date, counterpart_id = excluded.counterpart_id,
                    action = excluded.action, reply_to = excluded.reply_to, pinned = excluded.pinned, fwd_header = excluded.fwd_header,
                    media = excluded.media, media_kind = excluded.media_kind, grouped_id = excluded.grouped_id
            ), dialogs AS (
                INSERT INTO dialogs (\(MessageSQL.dialogColumns))
                SELECT owner, peer_type, peer_id, top_message, top_date, read_inbox_max_id, 0, unread_count
                FROM unnest($28::bigint[], $29::smallint[], $30::bigint[], $31::integer[], $32::integer[], $33::integer[],
                    $34::integer[]) AS d(owner, peer_type, peer_id, top_message, top_date, read_inbox_max_id, unread_count)
                WHERE (SELECT ok FROM expected)
                ON CONFLICT (owner, peer_type, peer_id) DO UPDATE SET
                    top_message = GREATEST(dialogs.top_message, excluded.top_message),
                    top_date = GREATEST(dialogs.top_date, excluded.top_date),
                    read_inbox_max_id = GREATEST(dialogs.read_inbox_max_id, excluded.read_inbox_max_id),
                    unread_count = dialogs.unread_count + excluded.unread_count
            ), sends AS (
                INSERT INTO sent_log (user_id, random_id, message_id, pts, date, channel_id)
                SELECT * FROM unnest($35::bigint[], $36::bigint[], $37::integer[], $38::integer[], $39::integer[], $40::bigint[])
                WHERE (SELECT ok FROM expected)
            )
            SELECT pg_notify('\(CommitAnnouncement.channel)', payload) FROM unnest($41::text[]) AS payload WHERE (SELECT ok FROM expected)
            """
    }

    /// Writes every pending row, inside the transaction (opened first if this is its first statement).
    func flush() throws {
        try begin()
        try writePending(announcing: [])
    }

    /// The batch's last statement: the pending rows and the announcements, then COMMIT. A batch that needed no
    /// statement before (its boxes all came from the cache) opened no transaction: the statement runs alone, as a
    /// transaction of its own (autocommit), and is the batch's only round trip.
    func finish(announcing announcements: [String]) throws {
        try writePending(announcing: announcements)
        if began { try recordingFailure { try session.run("COMMIT") } }
    }

    /// Writes every pending row and sends `announcements`; a no-op when there is neither.
    private func writePending(announcing announcements: [String]) throws {
        guard let statement = pendingRows(announcing: announcements) else { return }
        _ = try recordingFailure { try session.rows(statement) }
        pendingRowsWritten()
    }

    /// The statement writing the pending rows and sending `announcements`; nil when there is neither.
    func pendingRows(announcing announcements: [String]) -> Prepared<FlushRows>? {
        let rows = memory.pending
        guard !rows.isEmpty || !announcements.isEmpty else { return nil }
        let assumed = rows.assumed.sorted { $0.key < $1.key }
        let events = rows.events, states = Array(rows.states), messages = Array(rows.messages.values)
        let dialogs = Array(rows.dialogs), sends = rows.sends
        return Prepared<FlushRows>(
            events.map(\.user), events.map(\.event.pts), events.map(\.event.ptsCount), events.map(\.event.date),
            events.map { ByteBuffer(bytes: $0.event.update) },
            states.map(\.key), states.map(\.value.pts), states.map(\.value.qts), states.map(\.value.seq), states.map(\.value.date),
            states.map(\.value.nextMessageID),
            messages.map(\.owner), messages.map(\.id), messages.map { Int16($0.peer.typeCode) }, messages.map(\.peer.id),
            messages.map { $0.fromID ?? 0 }, messages.map { $0.fromID != nil }, messages.map(\.out), messages.map(\.date),
            messages.map { ByteBuffer(string: $0.text) }, messages.map { ByteBuffer(bytes: $0.entities) },
            messages.map { $0.editDate ?? 0 }, messages.map { $0.editDate != nil },
            messages.map { $0.counterpartID ?? 0 }, messages.map { $0.counterpartID != nil },
            messages.map { ByteBuffer(bytes: $0.action ?? []) }, messages.map { $0.action != nil },
            dialogs.map(\.key.owner), dialogs.map { Int16($0.key.peer.typeCode) }, dialogs.map(\.key.peer.id),
            dialogs.map(\.value.topMessage), dialogs.map(\.value.date), dialogs.map(\.value.readInboxTo), dialogs.map(\.value.unread),
            sends.map(\.key.user), sends.map(\.key.randomID), sends.map(\.record.messageID), sends.map(\.record.pts),
            sends.map(\.record.date), sends.map { $0.record.channelID ?? 0 },
            announcements,
            assumed.map(\.key), assumed.map(\.value.pts), assumed.map(\.value.qts), assumed.map(\.value.seq), assumed.map(\.value.date),
            assumed.map(\.value.nextMessageID),
            messages.map { $0.replyTo ?? 0 }, messages.map { $0.replyTo != nil }, messages.map(\.pinned),
            messages.map { ByteBuffer(bytes: $0.forward ?? []) }, messages.map { $0.forward != nil },
            messages.map { ByteBuffer(bytes: $0.media ?? []) }, messages.map { $0.media != nil }, messages.map { Int16($0.mediaKind.rawValue) },
            messages.map { $0.groupedID ?? 0 }, messages.map { $0.groupedID != nil })
    }

    /// `pendingRows`' statement succeeded.
    func pendingRowsWritten() {
        guard !memory.pending.isEmpty else { return }
        memory.flushed()
        databaseChanges += 1
    }
}
