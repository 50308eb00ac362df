import MTProto
import TL

extension MessagesRPC {
    /// `messages.search` in one chat: messages whose text contains `q` (ASCII letters in any case), optionally from one
    /// sender, pinned only (`inputMessagesFilterPinned`), within `min_date`…`max_date`, paged as history is (newest
    /// first; `offset_id`, `add_offset`, `max_id`, `min_id`, `limit` ≤ 100) with the total as the count. The media
    /// filters select by the kind stored with each message's media (`MediaKind`); the kinds of message this server does
    /// not carry (calls, locations, contacts, polls, chat photos) find nothing, truthfully; the filters by content it does
    /// not index (URLs, mentions) are `FILTER_NOT_SUPPORTED`, a search over all chats (`inputPeerEmpty`) is
    /// `PEER_ID_INVALID`, and a search with no query, sender or filter is `SEARCH_QUERY_EMPTY`.
    enum Search: RPCMethod {
        typealias Function = API.functions.messages.Search

        static func answer(_ call: Function, _ context: RPCContext, server: ServerContext) async throws(RPCError) -> Function.Result {
            let me = try context.user()
            try InputLimits.checkLookup(call.q, error: "QUERY_TOO_LONG")
            let pinnedOnly = call.filter == .inputMessagesFilterPinned(.init())
            let kinds = try mediaKinds(of: call.filter)
            if kinds == [] { return .messages(.init(messages: [], topics: [], chats: [], users: [])) }
            let query = call.q.trimmingBlanks()
            guard !query.isEmpty || pinnedOnly || kinds != nil || call.fromId != nil else { throw .badRequest("SEARCH_QUERY_EMPTY") }
            let (input, sender) = (call.peer, call.fromId)
            let dates = call.minDate...(call.maxDate > 0 ? max(call.maxDate, call.minDate) : Int32.max)
            let paging = try HistoryPaging(offsetID: call.offsetId, offsetDate: 0, addOffset: call.addOffset, limit: call.limit,
                                       maxID: call.maxId, minID: call.minId)
            return try await server.storageRead { tx in
                let peer = try PeerResolution.peer(input, me: me, in: tx)
                var search = MessageSearch(query: query, pinnedOnly: pinnedOnly, dates: dates, mediaKinds: kinds ?? [])
                if let sender {
                    guard case let .user(id) = try PeerResolution.peer(sender, me: me, in: tx) else { throw RPCError.badRequest("PEER_ID_INVALID") }
                    search.fromID = id
                }
                if case let .channel(id) = peer {
                    let (channel, member) = try ChannelAccess.membership(of: id, user: me, in: tx)
                    return try HistoryResults.channelMessages(try paging.page(channel: id, matching: search, in: tx), channel: channel,
                                                              member: member, total: try tx.searchChannelCount(channel: id, matching: search),
                                                              me: me, in: tx)
                }
                return try HistoryResults.messagesResult(try paging.page(owner: me, peer: peer, matching: search, in: tx),
                                                         total: try tx.searchCount(owner: me, peer: peer, matching: search), me: me, in: tx)
            }
        }

        /// The media kinds a filter selects: nil for a filter not by media, empty for kinds never stored here.
        static func mediaKinds(of filter: API.MessagesFilter) throws(RPCError) -> Set<MediaKind>? {
            switch filter {
            case .inputMessagesFilterEmpty, .inputMessagesFilterPinned: nil
            case .inputMessagesFilterPhotos: [.photo]
            case .inputMessagesFilterVideo: [.video]
            case .inputMessagesFilterPhotoVideo: [.photo, .video]
            case .inputMessagesFilterDocument: [.document]
            case .inputMessagesFilterMusic: [.music]
            case .inputMessagesFilterVoice: [.voice]
            case .inputMessagesFilterRoundVideo: [.roundVideo]
            case .inputMessagesFilterRoundVoice: [.roundVideo, .voice]
            case .inputMessagesFilterGif: [.gif]
            case .inputMessagesFilterUrl, .inputMessagesFilterMyMentions: throw .badRequest("FILTER_NOT_SUPPORTED")
            case .inputMessagesFilterChatPhotos, .inputMessagesFilterPhoneCalls, .inputMessagesFilterGeo, .inputMessagesFilterContacts,
                 .inputMessagesFilterPoll: []
            }
        }
    }
}
