import MTProto
import TL

/// One user's common update box inside a write transaction (core.telegram.org/api/updates#event-sequences):
/// every event that changes the user's private or basic-group view moves pts by its pts_count and is logged with
/// the pts it produced, in the same transaction that stores the change.
struct UserBox {
    let user: Int64
    private(set) var state: UserState
    private let tx: any StorageWriter

    init(user: Int64, tx: any StorageWriter) throws {
        self.user = user
        self.tx = tx
        state = try tx.state(user: user)
    }

    mutating func takeMessageID() -> Int32 {
        defer { state.nextMessageID += 1 }
        return state.nextMessageID
    }

    /// Logs one event: `make` receives the new pts and builds the update that carries it. Returns the new pts and
    /// the update (what a push sends).
    @discardableResult
    mutating func record(ptsCount: Int32, date: Int32, _ make: (_ pts: Int32) -> API.Update) throws -> (pts: Int32, update: API.Update) {
        let update = make(state.pts + ptsCount)
        return (try recordBytes(ptsCount: ptsCount, date: date) { _ in update.serialized() }, update)
    }

    /// `record` for an update already serialized by `make`. Returns the new pts.
    private mutating func recordBytes(ptsCount: Int32, date: Int32, _ make: (_ pts: Int32) -> [UInt8]) throws -> Int32 {
        state.pts += ptsCount
        WriteTally.assigned(ptsCount, channel: false)
        state.date = max(state.date, date)
        try tx.append(StoredEvent(pts: state.pts, ptsCount: ptsCount, date: date, update: make(state.pts)), user: user)
        return state.pts
    }

    /// A new message of this box (its id taken from `takeMessageID`): stored, logged as `updateNewMessage`, and its
    /// dialog raised — top message and date follow it, a received one is unread, a message to oneself is read.
    /// Returns the new pts.
    mutating func logNewMessage(_ message: StoredMessage) throws -> Int32 {
        try tx.upsert(message)
        let pts = try recordBytes(ptsCount: 1, date: message.date) { pts in TLRendering.newMessageUpdate(message, pts: pts) }
        try tx.raiseDialog(owner: user, peer: message.peer, topMessage: message.id, date: message.date, unread: message.out ? 0 : 1,
                           readInboxTo: message.out && message.peer == .user(user) ? message.id : 0)
        return pts
    }

    /// Logs an update that moves no pts (a user's new name, …) in the seq log (core.telegram.org/api/updates#updates-sequence):
    /// it is sent in an `updates` container whose seq is the returned one, and a difference lists it among
    /// `other_updates`. Returns the new seq. It is dated no earlier than the box's last event, so the seq log's dates
    /// follow its seqs (a difference reads it by date: `Difference`).
    mutating func recordSeq(date: Int32, _ update: API.Update) throws -> Int32 {
        guard state.seq < Int32.max else { throw RPCError(code: 500, message: "INTERNAL_SERVER_ERROR") }
        state.seq += 1
        let date = max(state.date, date)
        state.date = date
        try tx.appendSeqEvent(StoredSeqEvent(seq: state.seq, date: date, update: update.serialized()), user: user)
        return state.seq
    }

    /// Writes the advanced counters (call once, after the last `record`).
    func save() throws {
        try tx.setState(state, user: user)
    }
}
