import MTProto
import TL

/// The answer to `updates.getChannelDifference(channel, pts, limit)` (core.telegram.org/api/updates#channel-difference):
/// empty when the client is current; too long (the dialog and the latest messages, for the client to reset its
/// channel state) when the gap passes the threshold; otherwise up to `limit` logged events after `pts`, `final`
/// when none remain. `limit` is capped at 100 for users and 100,000 for bots, as Telegram caps it, and a page ends
/// once its events reach `Difference.pageBytes` (the page's pts is then its last event's). A
/// `channelMessagesFilter` keeps only the events about messages in its ranges (and drops new messages with
/// `exclude_new_messages`); the page's pts still moves past the events it left out.
enum ChannelDifference {
    static let userLimit: Int32 = 100
    static let botLimit: Int32 = 100_000
    /// Seconds a client waits before polling again when it is current (the `timeout` of a final answer).
    static let pollTimeout: Int32 = 30

    static func compute(for me: Int64, isBot: Bool, channel: ChannelRecord, member: ChannelMember, fromPts: Int32, limit: Int32,
                        filter: MessageFilter = .everything, tooLong: Int,
                        in tx: any StorageReader) throws -> API.updates.ChannelDifference {
        guard fromPts > 0 else { throw RPCError.badRequest("PERSISTENT_TIMESTAMP_EMPTY") }
        guard fromPts < channel.pts else {
            return .channelDifferenceEmpty(.init(final: true, pts: channel.pts, timeout: pollTimeout))
        }
        let cap = min(max(limit, 1), isBot ? botLimit : userLimit)
        guard Int(channel.pts) - Int(fromPts) <= tooLong else {
            return try Self.tooLong(for: me, channel: channel, member: member, count: Int(cap), in: tx)
        }
        let events = try tx.channelEvents(channel: channel.id, afterPts: fromPts, limit: Int(cap))
        var newMessages: [API.Message] = []
        var otherUpdates: [API.Update] = []
        var named: [PeerRef] = [.user(me)]
        var (size, pts) = (0, channel.pts)
        for event in events {
            guard size < Difference.pageBytes else { break }
            pts = event.pts
            size += event.update.count
            // A row that no longer decodes, or too large to be one a client sent, is skipped (the client still moves past it).
            guard event.update.count <= Difference.largestEventBytes,
                  let decoded = try? API.Update.deserialize(event.update), let logged = filter.apply(decoded) else { continue }
            named += NamedPeers.of(logged)   // senders, forward origins, service messages' members
            let update = ChannelRendering.event(logged, viewer: me, broadcast: channel.broadcast)
            if case let .updateNewChannelMessage(value) = update {
                newMessages.append(value.message)
            } else {
                otherUpdates.append(update)
            }
        }
        let users = try ViewerLinks.rendered(try PeerRendering.users(among: named, in: tx), viewer: me, in: tx)
        let others = try PeerRendering.chats(among: named.filter { $0 != .channel(channel.id) }, viewer: me, in: tx)
        let isFinal = pts >= channel.pts
        return .channelDifference(.init(final: isFinal, pts: pts, timeout: isFinal ? pollTimeout : nil, newMessages: newMessages,
                                        otherUpdates: otherUpdates, chats: [ChannelRendering.chat(channel, member: member)] + others,
                                        users: users))
    }

    /// The dialog (with the channel's current pts) and the newest `count` messages: the client drops what it
    /// had of the channel and starts again from here.
    private static func tooLong(for me: Int64, channel: ChannelRecord, member: ChannelMember, count: Int,
                                in tx: any StorageReader) throws -> API.updates.ChannelDifference {
        let latest = try tx.channelMessages(channel: channel.id, in: IDRange(above: 0, below: .max, newestFirst: true, limit: count))
        let unread = try tx.channelUnreadCount(channel: channel.id, above: member.readInboxMaxID, viewer: me)
        let dialog = ChannelRendering.dialog(channel, member: member, topMessage: latest.first?.id ?? 0, unread: unread)
        let (users, chats) = try HistoryResults.peers(of: latest, channel: channel, member: member, me: me, in: tx)
        return .channelDifferenceTooLong(.init(
            final: true, timeout: pollTimeout, dialog: dialog,
            messages: latest.map { ChannelRendering.message($0, viewer: me, broadcast: channel.broadcast) }, chats: chats, users: users))
    }

    /// `updateChannelTooLong` for every channel of the user with events since `date` (the client's state date less
    /// `Difference.lookback`), and those channels: what tells a client in `getDifference` which channels to ask
    /// `getChannelDifference` for. Each names the channel's pts, so a client that has reached it asks nothing.
    static func channelsWithNews(of user: Int64, since date: Int32, in tx: any StorageReader) throws -> (updates: [API.Update], chats: [API.Chat]) {
        var updates: [API.Update] = []
        var chats: [API.Chat] = []
        for member in try tx.memberships(user: user) {
            guard let channel = try tx.channel(id: member.channelID), channel.pts > 0, channel.lastEventDate >= date else { continue }
            updates.append(.updateChannelTooLong(.init(channelId: channel.id, pts: channel.pts)))
            chats.append(ChannelRendering.chat(channel, member: member))
        }
        return (updates, chats)
    }
}

/// `channelMessagesFilter` of `updates.getChannelDifference`: only events about messages whose ids fall in one of
/// the ranges; `exclude_new_messages` leaves new messages out. `channelMessagesFilterEmpty` keeps everything.
struct MessageFilter: Sendable {
    private let ranges: [ClosedRange<Int32>]?
    private let excludeNew: Bool

    /// The filter that keeps every event.
    static let everything = MessageFilter()

    private init() {
        (ranges, excludeNew) = (nil, false)
    }

    /// Ranges one filter may carry: each event is checked against every range.
    static let maximumRanges = 100

    init(_ filter: API.ChannelMessagesFilter) throws(RPCError) {
        switch filter {
        case .channelMessagesFilterEmpty:
            (ranges, excludeNew) = (nil, false)
        case let .channelMessagesFilter(value):
            guard value.ranges.count <= Self.maximumRanges else { throw .badRequest("RANGES_INVALID") }
            ranges = value.ranges.compactMap { range in
                guard case let .messageRange(bounds) = range, bounds.minId <= bounds.maxId else { return nil }
                return bounds.minId...bounds.maxId
            }
            excludeNew = value.excludeNewMessages
        }
    }

    /// The update as the filter leaves it: nil when nothing of it is kept.
    func apply(_ update: API.Update) -> API.Update? {
        switch update {
        case let .updateNewChannelMessage(value):
            return !excludeNew && admits(Self.id(of: value.message)) ? update : nil
        case let .updateEditChannelMessage(value):
            return admits(Self.id(of: value.message)) ? update : nil
        case var .updateDeleteChannelMessages(value):
            value.messages = value.messages.filter(admits)
            return value.messages.isEmpty ? nil : .updateDeleteChannelMessages(value)
        default:
            return update
        }
    }

    private func admits(_ id: Int32) -> Bool {
        ranges.map { $0.contains { $0.contains(id) } } ?? true
    }

    private static func id(of message: API.Message) -> Int32 {
        switch message {
        case let .message(value): value.id
        case let .messageService(value): value.id
        case let .messageEmpty(value): value.id
        }
    }
}
