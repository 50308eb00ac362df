import TL

/// The answer to `updates.getDifference(pts)`: empty when the client is current, too-long past the threshold,
/// otherwise the logged events after `pts` — new messages apart, every other update in `other_updates` — as one
/// `difference` or, when more remain than a page, a `differenceSlice` whose intermediate state the client
/// continues from. Channels with events since the client's date are named by `updateChannelTooLong` in
/// `other_updates` (their events are in the channel's log, for `getChannelDifference`). Updates without pts (a new
/// name) are in the user's seq log; each page carries those dated at or after the date it was asked from — the same
/// second again included, since a client's state names a date and not a seq, and these updates say what is, so
/// seeing one twice changes nothing — and every state the state's seq.
///
/// Both date queries look `lookback` seconds further back than the date asked. A date is taken before its write
/// commits, so an event can commit after a client was handed a later date (by a push of another event, or by a
/// difference computed meanwhile); asked from that date alone, it would be left out while the seq or the channel's
/// pts covers it. Seq events of one user are dated in seq order (`UserBox.recordSeq`), so what a page lists is always
/// the log's tail from some event on, and applying it again ends in the same state.
///
/// Logged events are copied into the answer as stored (`LoggedUpdateBytes`), not decoded and re-encoded: this is
/// the server's most data-heavy answer (up to a page of 1,000 events per call, and at most `pageBytes` of them: a
/// page of the largest messages a client may send is a slice of a few dozen, never an answer too large to frame).
enum Difference {
    /// Events of one answer stop once they reach this many bytes (honest pages of short texts stay far below it).
    static let pageBytes = 1 << 20
    /// Seq-log events one difference page lists at most (apart from the pts page size: a seq event is not in the pts
    /// order, and leaving out an older one while the state's seq covers it would lose it).
    static let seqEventsPerPage = 1_000
    /// A stored event larger than this is skipped like one that no longer decodes: only rows written before the input
    /// limits existed can be (`InputLimits.largestMessageBytes` is far below), and none may make every later
    /// difference impossible.
    static let largestEventBytes = 4 * InputLimits.largestMessageBytes
    /// How much earlier than the asked date the seq log and the channels' news are read: longer than a write takes
    /// from taking its date to committing (a batch of SQLite writes, a PostgreSQL transaction waiting on a row lock).
    /// The cost is listing the last seconds' seq events and active channels again.
    static let lookback: Int32 = 10

    struct Answer {
        /// The constructor name, for metrics.
        let kind: String
        let encoded: TLPreEncoded<API.updates.Difference>
    }

    static func compute(for user: Int64, fromPts: Int32, date: Int32, now: Int32, pageSize: Int, tooLong: Int,
                        in tx: any StorageReader) throws -> Answer {
        let state = try tx.state(user: user)
        guard Int(state.pts) - Int(fromPts) <= tooLong else {
            return typed(.differenceTooLong(.init(pts: state.pts)))
        }
        let since = date > Int32.min + lookback ? date - lookback : Int32.min
        let channels = try ChannelDifference.channelsWithNews(of: user, since: since, in: tx)
        let sequenced = state.seq > 0 ? try tx.seqEvents(user: user, since: since, limit: seqEventsPerPage) : []
        guard fromPts < state.pts || !channels.updates.isEmpty || !sequenced.isEmpty else {
            return typed(.differenceEmpty(.init(date: max(state.date, now), seq: state.seq)))
        }
        let events = fromPts < state.pts ? try tx.events(user: user, afterPts: fromPts, limit: pageSize) : []
        var page = Page(channelUpdates: channels.updates)
        var peers: Set<PeerRef> = [.user(user)]
        var last: (pts: Int32, date: Int32)?
        for event in events {
            guard page.size < pageBytes else { break }
            page.add(event.update, peers: &peers)
            last = (event.pts, event.date)
        }
        // Seq events oldest first, up to the page's bytes; when some are left, the page's state stops at the last one
        // given (its seq, and its date plus the lookback: the next request reads from that date — a second later when
        // it would not move, which a user's rate of changes keeps from skipping anything).
        let given = page.add(sequenced, peers: &peers)
        let seqCut: StoredSeqEvent? = given < sequenced.count || (sequenced.count == seqEventsPerPage && (sequenced.last?.seq ?? 0) < state.seq)
            ? (given > 0 ? sequenced[given - 1] : nil) : nil
        let userIDs = peers.compactMap { peer -> Int64? in if case let .user(id) = peer { id } else { nil } }.sorted()
        let users = try ViewerLinks.rendered(try userIDs.compactMap { try tx.user(id: $0) }, viewer: user, in: tx)
        let listed = Set(channels.chats.compactMap(PeerRendering.ref))
        let chats = channels.chats + (try PeerRendering.chats(among: Array(peers).filter { !listed.contains($0) }, viewer: user, in: tx))
        let unread = Int32(clamping: try tx.unreadTotal(owner: user))
        if let cut = seqCut {
            let intermediate = API.updates.State.state(.init(pts: last?.pts ?? state.pts, qts: state.qts,
                                                             date: (cut.date > since ? cut.date : since &+ 1) &+ lookback,
                                                             seq: cut.seq, unreadCount: unread))
            return page.encode(slice: true, chats: chats, users: users, state: intermediate)
        }
        if let last, last.pts < state.pts {
            let intermediate = API.updates.State.state(.init(pts: last.pts, qts: state.qts, date: last.date, seq: state.seq,
                                                             unreadCount: unread))
            return page.encode(slice: true, chats: chats, users: users, state: intermediate)
        }
        let final = API.updates.State.state(.init(pts: state.pts, qts: state.qts, date: max(state.date, now), seq: state.seq,
                                                  unreadCount: unread))
        return page.encode(slice: false, chats: chats, users: users, state: final)
    }

    private static func typed(_ difference: API.updates.Difference) -> Answer {
        Answer(kind: difference.constructorName, encoded: TLPreEncoded(bytes: difference.serialized()))
    }

    /// The events of one answer, as bytes: `new_messages` and `other_updates`.
    private struct Page {
        var messages: [ArraySlice<UInt8>] = []
        var otherUpdates: [[UInt8]]
        var size = 0

        init(channelUpdates: [API.Update]) {
            otherUpdates = channelUpdates.map { $0.serialized() }
        }

        mutating func add(_ body: [UInt8], peers: inout Set<PeerRef>) {
            guard body.count <= largestEventBytes else { return }
            if let message = LoggedUpdateBytes.newMessage(in: body), let named = LoggedUpdateBytes.peers(inMessage: message) {
                messages.append(message)
                peers.formUnion(named)
                // Service messages and forwards name more (members, origins): decoded, they are few.
                if LoggedUpdateBytes.namesMoreThanItsPeers(message), let decoded = try? API.Message.deserialize(Array(message)) {
                    peers.formUnion(NamedPeers.of(decoded))
                }
                size += message.count
            } else if let update = try? API.Update.deserialize(body) {
                otherUpdates.append(body)
                peers.formUnion(NamedPeers.of(update))
                size += body.count
            }
            // A row that no longer decodes, or is too large, is skipped (and the client still advances past it) rather
            // than failing every later difference.
        }

        /// Seq-log updates go to `other_updates` with the users they name, in seq order, while the page has room (the
        /// first always); returns how many of them were taken (skipped rows count as taken).
        mutating func add(_ sequenced: [StoredSeqEvent], peers: inout Set<PeerRef>) -> Int {
            var taken = 0
            for event in sequenced {
                guard taken == 0 || size < pageBytes else { break }
                taken += 1
                guard event.update.count <= largestEventBytes, let update = try? API.Update.deserialize(event.update) else { continue }
                peers.formUnion(NamedPeers.of(update))
                otherUpdates.append(event.update)
                size += event.update.count
            }
            return taken
        }

        /// `updates.difference` or `updates.differenceSlice`: both lay out their fields in the same order, the last
        /// being the (final or intermediate) state.
        func encode(slice: Bool, chats: [API.Chat], users: [API.User], state: API.updates.State) -> Answer {
            var writer = TLWriter(capacity: size + 256 * (users.count + chats.count) + 64)
            writer.writeUInt32(slice ? API.updates.Difference.DifferenceSlice.constructorID : API.updates.Difference.Difference.constructorID)
            writer.writeVectorHeader(count: messages.count)
            for message in messages { writer.writeRaw(message) }
            writer.writeVectorHeader(count: 0)                     // new_encrypted_messages
            writer.writeVectorHeader(count: otherUpdates.count)
            for update in otherUpdates { writer.writeRaw(update) }
            chats.encode(to: &writer)
            users.encode(to: &writer)
            state.encode(to: &writer)
            let kind = slice ? API.updates.Difference.DifferenceSlice.constructorName : API.updates.Difference.Difference.constructorName
            return Answer(kind: kind, encoded: TLPreEncoded(bytes: writer.bytes))
        }
    }
}
