import MTProtoNIO
import Postbox
import TL

/// `updateChannel` says only that something about a channel changed (the account joined, left, was promoted or
/// banned, the channel became visible; core.telegram.org/constructor/updateChannel): the channel is fetched again with
/// `channels.getChannels` and stored, as Telegram-iOS does. A channel the store cannot address (no access hash) is
/// passed over; an error leaves the stored copy until the next update.
struct ChannelRefresher: Sendable {
    let postbox: Postbox
    /// Sends `channels.getChannels` (the account's network).
    let fetch: @Sendable (API.functions.channels.GetChannels) async throws -> API.messages.Chats

    /// Refetches each channel an `updateChannel` of `events` names, until the stream ends.
    func run(_ events: AsyncStream<AccountEvent>) async {
        for await event in events {
            guard case let .delivered(.updateChannel(update)) = event else { continue }
            try? await refresh(update.channelId)
        }
    }

    /// Fetches channel `id` and stores what the server answers (its current copy, or its forbidden form).
    func refresh(_ id: Int64) async throws {
        guard case let .channel(stored)? = try await postbox.read({ try $0.peer(StoreMapping.channel(id)) }),
              let accessHash = stored.accessHash, !stored.flags.contains(.min) else { return }
        let chats: [API.Chat] = switch try await fetch(API.functions.channels.GetChannels(
            id: [.inputChannel(.init(channelId: id, accessHash: accessHash))])) {
        case let .chats(value): value.chats
        case let .chatsSlice(value): value.chats
        }
        let peers = StoreMapping.peers(users: [], chats: chats)
        _ = try await postbox.transaction { try StoreMapping.store(peers, in: $0) }
    }
}
