import NIOCore
import PostgresNIO

/// One transaction's view of the PostgreSQL backend, the mirror of `SQLiteTransaction`. Every statement is
/// prepared once per connection (`PostgresSQL`).
///
/// Counters stay exact when several processes write for the same user or channel at once: in a write transaction
/// a box's counters are read `FOR UPDATE` (the row stays locked until COMMIT, so the next writer reads what this one
/// wrote), `lockBoxes` takes several in ascending id order so two writers never wait for each other, and every
/// logged event's (box, pts) is a primary key, so a writer that slipped past the locks (a box whose row did not
/// exist yet) fails with a unique violation and its transaction is run again (`PostgresServerStorage.write`).
final class PostgresTransaction: StorageWriter, @unchecked Sendable {
    let session: PostgresSession
    let isWrite: Bool
    let users: UserCache
    /// The events this transaction logged, announced to the other processes with its COMMIT.
    var logged: [CommittedEvent] = []
    /// Box states this write transaction holds locked (read by `lockBoxes` or `FOR UPDATE`) or wrote: nobody else
    /// changes them before COMMIT, so they are read once.
    private var lockedStates: [Int64: UserState] = [:]
    /// Users inserted by this transaction: not cached until committed.
    private var insertedUsers: Set<Int64> = []

    init(session: PostgresSession, isWrite: Bool, users: UserCache) {
        self.session = session
        self.isWrite = isWrite
        self.users = users
    }

    // MARK: users and authorizations

    enum UserByID: PostgresSQL { static let sql = "SELECT \(userColumns) FROM users WHERE id = $1" }
    enum UserByPhone: PostgresSQL { static let sql = "SELECT \(userColumns) FROM users WHERE phone = $1" }
    enum UserByUsername: PostgresSQL { static let sql = "SELECT \(userColumns) FROM users WHERE lower(username) = lower($1)" }
    enum MaxUserID: PostgresSQL { static let sql = "SELECT COALESCE(MAX(id), 0) FROM users" }
    enum InsertUser: PostgresSQL {
        static let sql = """
            INSERT INTO users (id, access_hash, phone, first_name, last_name, username, home_dc, bot) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
            """
    }
    enum UserOfKey: PostgresSQL { static let sql = "SELECT user_id FROM authorizations WHERE auth_key_id = $1" }
    enum BindKey: PostgresSQL {
        static let sql = """
            INSERT INTO authorizations (auth_key_id, user_id) VALUES ($1, $2) ON CONFLICT (auth_key_id) DO UPDATE SET user_id = excluded.user_id
            """
    }
    enum UnbindKey: PostgresSQL { static let sql = "DELETE FROM authorizations WHERE auth_key_id = $1" }

    static let userColumns = "id, access_hash, phone, first_name, last_name, username, home_dc, bot"

    /// Users never change once inserted, so the cache is shared by every process's view of them.
    func user(id: Int64) throws -> UserRecord? {
        if let cached = users.user(id: id) { return cached }
        let user = try session.rows(UserByID.self, id).first.map(Self.user(from:))
        if let user, !insertedUsers.contains(id) { users.remember([user]) }
        return user
    }

    func user(phone: String) throws -> UserRecord? {
        try session.rows(UserByPhone.self, phone).first.map(Self.user(from:))
    }

    func user(username: String) throws -> UserRecord? {
        try session.rows(UserByUsername.self, username).first.map(Self.user(from:))
    }

    func maxUserID() throws -> Int64 {
        try session.rows(MaxUserID.self).first?.decode(Int64.self) ?? 0
    }

    func insert(_ user: UserRecord) throws {
        insertedUsers.insert(user.id)
        try session.rows(InsertUser.self, user.id, user.accessHash, user.phone, user.firstName, user.lastName, user.username,
            user.homeDC, user.isBot)
    }

    func userID(authKeyID: UInt64) throws -> Int64? {
        try session.rows(UserOfKey.self, Int64(bitPattern: authKeyID)).first?.decode(Int64.self)
    }

    func bind(authKeyID: UInt64, to user: Int64?) throws {
        if let user {
            try session.rows(BindKey.self, Int64(bitPattern: authKeyID), user)
        } else {
            try session.rows(UnbindKey.self, Int64(bitPattern: authKeyID))
        }
    }

    static func user(from row: PostgresRow) throws -> UserRecord {
        let (id, accessHash, phone, firstName, lastName, username, homeDC, bot) =
            try row.decode((Int64, Int64, String, String, String, String?, Int32, Bool).self)
        return UserRecord(id: id, accessHash: accessHash, phone: phone, firstName: firstName, lastName: lastName, username: username,
                          homeDC: homeDC, isBot: bot)
    }

    // MARK: box state and update log

    enum State: PostgresSQL { static let sql = "SELECT \(stateColumns) FROM user_states WHERE user_id = $1" }
    enum StateForUpdate: PostgresSQL { static let sql = "SELECT \(stateColumns) FROM user_states WHERE user_id = $1 FOR UPDATE" }
    enum SetState: PostgresSQL {
        static let sql = """
            INSERT INTO user_states (user_id, pts, qts, seq, date, next_message_id) VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (user_id) DO UPDATE SET pts = excluded.pts, qts = excluded.qts, seq = excluded.seq, date = excluded.date,
                next_message_id = excluded.next_message_id
            """
    }
    /// Creates missing rows and locks them all in ascending id order: one statement, so one round trip.
    enum LockBoxes: PostgresSQL {
        static let sql = """
            INSERT INTO user_states (user_id, pts, qts, seq, date, next_message_id)
                SELECT id, 0, 0, 0, 0, 1 FROM unnest($1::bigint[]) AS id ORDER BY id
            ON CONFLICT (user_id) DO UPDATE SET pts = user_states.pts
            RETURNING user_id, \(stateColumns)
            """
    }
    enum Events: PostgresSQL {
        static let sql = "SELECT pts, pts_count, date, body FROM user_events WHERE user_id = $1 AND pts > $2 ORDER BY pts LIMIT $3"
    }
    enum AppendEvent: PostgresSQL {
        static let sql = "INSERT INTO user_events (user_id, pts, pts_count, date, body) VALUES ($1, $2, $3, $4, $5)"
    }

    static let stateColumns = "pts, qts, seq, date, next_message_id"

    func state(user: Int64) throws -> UserState {
        if let locked = lockedStates[user] { return locked }
        let rows = isWrite ? try session.rows(StateForUpdate.self, user) : try session.rows(State.self, user)
        let state = try rows.first.map(Self.state(from:)) ?? UserState()
        if isWrite, !rows.isEmpty { lockedStates[user] = state }
        return state
    }

    static func state(from row: PostgresRow) throws -> UserState {
        let (pts, qts, seq, date, next) = try row.decode((Int32, Int32, Int32, Int32, Int32).self)
        return UserState(pts: pts, qts: qts, seq: seq, date: date, nextMessageID: next)
    }

    func lockBoxes(users: [Int64]) throws {
        guard isWrite else { return }
        let ids = Array(Set(users)).sorted().filter { lockedStates[$0] == nil }
        guard !ids.isEmpty else { return }
        for row in try session.rows(LockBoxes.self, ids) {
            let (user, pts, qts, seq, date, next) = try row.decode((Int64, Int32, Int32, Int32, Int32, Int32).self)
            lockedStates[user] = UserState(pts: pts, qts: qts, seq: seq, date: date, nextMessageID: next)
        }
    }

    func setState(_ state: UserState, user: Int64) throws {
        lockedStates[user] = state
        try session.rows(SetState.self, user, state.pts, state.qts, state.seq, state.date, state.nextMessageID)
    }

    func events(user: Int64, afterPts: Int32, limit: Int) throws -> [StoredEvent] {
        try session.rows(Events.self, user, afterPts, Int64(limit)).map(Self.event(from:))
    }

    static func event(from row: PostgresRow) throws -> StoredEvent {
        let (pts, ptsCount, date, body) = try row.decode((Int32, Int32, Int32, ByteBuffer).self)
        return StoredEvent(pts: pts, ptsCount: ptsCount, date: date, update: Array(body.readableBytesView))
    }

    func append(_ event: StoredEvent, user: Int64) throws {
        try session.rows(AppendEvent.self, user, event.pts, event.ptsCount, event.date, ByteBuffer(bytes: event.update))
        logged.append(CommittedEvent(box: .user(user), pts: event.pts, ptsCount: event.ptsCount))
    }

    // MARK: idempotent sends

    enum SentByRandomID: PostgresSQL {
        static let sql = """
            SELECT message_id, pts, date, channel_id FROM sent_log WHERE user_id = $1 AND random_id = $2 ORDER BY id DESC LIMIT 1
            """
    }
    enum RecordSent: PostgresSQL {
        static let sql = "INSERT INTO sent_log (user_id, random_id, message_id, pts, date, channel_id) VALUES ($1, $2, $3, $4, $5, $6)"
    }

    /// Every earlier send is found (SQLite keeps a window of each sender's latest sends; here the index makes the
    /// whole log cheap to ask).
    func sent(user: Int64, randomID: Int64) throws -> SentRecord? {
        guard let row = try session.rows(SentByRandomID.self, user, randomID).first else { return nil }
        let (messageID, pts, date, channel) = try row.decode((Int32, Int32, Int32, Int64).self)
        return SentRecord(messageID: messageID, pts: pts, date: date, channelID: channel == 0 ? nil : channel)
    }

    func recordSent(_ record: SentRecord, user: Int64, randomID: Int64) throws {
        try session.rows(RecordSent.self, user, randomID, record.messageID, record.pts, record.date, record.channelID ?? 0)
    }
}

/// An event a committed transaction logged: which box, and the pts range it took (`pts - ptsCount`, `pts`].
public struct CommittedEvent: Sendable, Equatable {
    public let box: PeerRef
    public let pts: Int32
    public let ptsCount: Int32
}
