import Foundation
import TL

/// The objects of Tests/Interop/telethon_golden.py, built with the generated Swift types.
/// Each must serialize to exactly the bytes Telethon 1.45 produced for it.
enum TelethonGoldenObjects {
    static let big: Int64 = (1 << 53) + 1
    static let hash: Int64 = -(1 << 62) - 12345
    static let nonce = TLInt128(bytes: Array(0..<16))!
    static let negativeNonce = TLInt128(low: ~nonce.low &+ 1, high: ~nonce.high &+ (nonce.low == 0 ? 1 : 0))
    static let newNonce = TLInt256(bytes: Array(100..<132))!

    static let entities: [API.MessageEntity] = [
        .messageEntityBold(.init(offset: 0, length: 5)),
        .messageEntityTextUrl(.init(offset: 6, length: 4, url: "https://example.org")),
    ]

    static func message(_ id: Int32, _ text: String, out: Bool = false, channel: Int64? = nil,
                        entities: [API.MessageEntity]? = nil, flags2: Bool = false) -> API.Message {
        let peer: API.Peer = channel.map { .peerChannel(.init(channelId: $0)) } ?? .peerUser(.init(userId: 555))
        return .message(.init(
            out: out, offline: flags2, id: id, fromId: channel == nil ? .peerUser(.init(userId: 1)) : nil, peerId: peer,
            viaBusinessBotId: flags2 ? big : nil, date: 1_700_000_000 + id, message: text, entities: entities,
            views: channel == nil ? nil : 10, forwards: channel == nil ? nil : 2
        ))
    }

    static func user(_ id: Int64, _ first: String, username: String? = nil, phone: String? = nil) -> API.User {
        .user(.init(
            contact: true, botCanEdit: true, id: id, accessHash: hash + id, firstName: first, username: username,
            phone: phone, status: .userStatusRecently(.init(byMe: true)),
            color: .peerColor(.init(color: 3, backgroundEmojiId: big))
        ))
    }

    static let channel: API.Chat = .channel(.init(
        broadcast: true, storiesHidden: true, id: 4242, accessHash: hash, title: "News", username: "news",
        photo: .chatPhotoEmpty(.init()), date: 1_700_000_000, participantsCount: 3
    ))

    static let state: API.updates.State = .state(.init(pts: 120, qts: 0, date: 1_700_000_100, seq: 7, unreadCount: 3))

    static let markup: API.ReplyMarkup = .replyInlineMarkup(.init(rows: [
        .keyboardInlineButtonRow(.init(buttons: [
            .keyboardInlineButton(.init(text: "yes", type: .inlineButtonTypeCallback(.init(data: Data([1, 2, 3]))))),
            .keyboardInlineButton(.init(text: "site", type: .inlineButtonTypeUrl(.init(url: "https://example.org")))),
        ])),
        .keyboardInlineButtonRow(.init(buttons: [])),
    ]))

    static let pq = Data([0x17, 0xED, 0x48, 0x94, 0x1A, 0x08, 0xF9, 0x81])

    /// Name (as in the Python script) → value.
    static let all: [String: any TLValue] = [
        "string_len_0": API.functions.contacts.ResolveUsername(username: ""),
        "string_len_253": API.functions.contacts.ResolveUsername(username: String(repeating: "a", count: 253)),
        "string_len_254": API.functions.contacts.ResolveUsername(username: String(repeating: "b", count: 254)),
        "string_len_1000": API.functions.contacts.ResolveUsername(username: String(repeating: "c", count: 1000), referer: "ref"),
        "bytes_len_300": API.functions.auth.ImportAuthorization(id: big, bytes: Data(0...255) + Data(count: 44)),
        "long_above_2_53": API.InputPeer.inputPeerUser(.init(userId: big, accessHash: hash)),
        "long_extremes": API.InputPeer.inputPeerChannel(.init(channelId: .max, accessHash: .min)),
        "double_geo_point": API.GeoPoint.geoPoint(.init(long: -122.4194155, lat: 37.7749295, accessHash: hash, accuracyRadius: 15)),
        "bool_fields": API.PeerNotifySettings.peerNotifySettings(.init(showPreviews: true, silent: false, muteUntil: .max)),
        "req_pq_multi_int128": MT.functions.ReqPqMulti(nonce: nonce),
        "res_pq": MT.ResPQ.resPQ(.init(nonce: nonce, serverNonce: negativeNonce, pq: pq,
                                       serverPublicKeyFingerprints: [-3_414_540_481_677_951_611])),
        "p_q_inner_data_dc_int256": MT.PQInnerData.pQInnerDataDc(.init(
            pq: pq, p: Data([0x49, 0x4C, 0x55, 0x3B]), q: Data([0x53, 0x91, 0x10, 0x73]), nonce: nonce,
            serverNonce: negativeNonce, newNonce: newNonce, dc: 2)),
        "rpc_error": MT.RpcError.rpcError(.init(errorCode: 420, errorMessage: "FLOOD_WAIT_3")),
        "msgs_ack": MT.MsgsAck.msgsAck(.init(msgIds: [big, 1, -1])),
        "bad_server_salt": MT.BadMsgNotification.badServerSalt(.init(badMsgId: big, badMsgSeqno: 3, errorCode: 48, newServerSalt: hash)),
        "message_flags_unset": API.Message.message(.init(id: 1, peerId: .peerUser(.init(userId: 2)), date: 3, message: "")),
        "message_flags_set": message(10, "hello world", out: true, entities: entities),
        "message_flags2": message(11, "flags2", flags2: true),
        "user_flags2": user(555, "Bob", username: "bob", phone: "15550002"),
        "channel": channel,
        "nested_vectors_reply_markup": markup,
        "dc_option_static_secret": API.DcOption.dcOption(.init(static: true, id: 2, ipAddress: "127.0.0.1", port: 4430, secret: Data(count: 16))),
        "updates_too_long": API.Updates.updatesTooLong(.init()),
        "update_short_message": API.Updates.updateShortMessage(.init(
            out: true, id: 1, userId: 555, message: "héllo 👋 мир", pts: 57, ptsCount: 1, date: 1_700_000_000, entities: entities)),
        "update_short_chat_message": API.Updates.updateShortChatMessage(.init(
            id: 2, fromId: 555, chatId: 77, message: "hi all", pts: 58, ptsCount: 1, date: 1_700_000_001, viaBotId: big)),
        "update_short": API.Updates.updateShort(.init(
            update: .updateUserStatus(.init(userId: 555, status: .userStatusRecently(.init()))), date: 1_700_000_002)),
        "updates_combined": API.Updates.updatesCombined(.init(
            updates: [.updateReadHistoryInbox(.init(peer: .peerUser(.init(userId: 555)), maxId: 9, stillUnreadCount: 0, pts: 60, ptsCount: 1))],
            users: [], chats: [], date: 1_700_000_003, seqStart: 8, seq: 9)),
        "updates": API.Updates.updates(.init(
            updates: [
                .updateMessageID(.init(id: 5, randomId: hash)),
                .updateNewChannelMessage(.init(message: message(5, "post", channel: 4242), pts: 31, ptsCount: 1)),
            ],
            users: [user(1, "Alice", username: "alice")], chats: [channel], date: 1_700_000_004, seq: 0)),
        "update_short_sent_message": API.Updates.updateShortSentMessage(.init(out: true, id: 77, pts: 58, ptsCount: 1, date: 1_700_000_005)),
        "difference_empty": API.updates.Difference.differenceEmpty(.init(date: 1_700_000_006, seq: 7)),
        "difference": API.updates.Difference.difference(.init(
            newMessages: [message(20, "one"), message(21, "two", out: true, entities: entities)],
            newEncryptedMessages: [],
            otherUpdates: [
                .updateDeleteMessages(.init(messages: [1, 2, 3], pts: 70, ptsCount: 3)),
                .updateChannelTooLong(.init(channelId: 4242, pts: 33)),
            ],
            chats: [channel], users: [user(555, "Bob")], state: state)),
        "difference_slice": API.updates.Difference.differenceSlice(.init(
            newMessages: [message(22, "three")], newEncryptedMessages: [], otherUpdates: [], chats: [], users: [],
            intermediateState: state)),
        "difference_too_long": API.updates.Difference.differenceTooLong(.init(pts: 1000)),
        "channel_difference": API.updates.ChannelDifference.channelDifference(.init(
            final: true, pts: 40, timeout: 30, newMessages: [message(6, "post 6", channel: 4242)],
            otherUpdates: [.updateDeleteChannelMessages(.init(channelId: 4242, messages: [4], pts: 40, ptsCount: 1))],
            chats: [channel], users: [])),
        "channel_difference_empty": API.updates.ChannelDifference.channelDifferenceEmpty(.init(final: true, pts: 40, timeout: 30)),
        "invoke_with_layer_init_connection": API.functions.InvokeWithLayer(layer: 229, query: API.functions.InitConnection(
            apiId: 12345, deviceModel: "PC", systemVersion: "Linux", appVersion: "1.45.0", systemLangCode: "en",
            langPack: "", langCode: "en", query: API.functions.help.GetConfig())),
        "send_message": API.functions.messages.SendMessage(
            peer: .inputPeerUser(.init(userId: 555, accessHash: hash)), message: "yo", randomId: big, entities: []),
        "get_history": API.functions.messages.GetHistory(
            peer: .inputPeerChannel(.init(channelId: 4242, accessHash: hash)), offsetId: 100, offsetDate: 0, addOffset: -10,
            limit: 100, maxId: 0, minId: 0, hash: 0),
        "get_difference": API.functions.updates.GetDifference(pts: 57, ptsTotalLimit: 1000, date: 1_700_000_000, qts: -1),
        "get_channel_difference": API.functions.updates.GetChannelDifference(
            force: true, channel: .inputChannel(.init(channelId: 4242, accessHash: hash)),
            filter: .channelMessagesFilterEmpty(.init()), pts: 21, limit: 100),
        "get_users_self": API.functions.users.GetUsers(id: [.inputUserSelf(.init())]),
    ]
}
