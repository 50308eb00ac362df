#!/usr/bin/env python3
"""Prints the TL bytes that Telethon 1.45 produces for representative layer-229 objects.

The Swift tests (Tests/TLTests/TelethonGoldenTests.swift) build the same objects with the generated
types and compare byte for byte; they read the committed output, Tests/TLTests/Fixtures/telethon-golden.json.
`.ci/run` runs this script in a virtualenv with telethon==1.45.0 and fails if the committed file differs.

Usage: telethon_golden.py > Tests/TLTests/Fixtures/telethon-golden.json
"""
import json

import telethon
from telethon.tl import functions, types

BIG = 2**53 + 1          # a long above 2^53
HASH = -(2**62) - 12345  # a negative long
NONCE = int.from_bytes(bytes(range(16)), "little", signed=True)
NEW_NONCE = int.from_bytes(bytes(range(100, 132)), "little", signed=True)


def message(id, text, out=False, channel=None, entities=None, flags2=False):
    peer = types.PeerChannel(channel) if channel else types.PeerUser(555)
    return types.Message(
        id=id, peer_id=peer, date=1700000000 + id, message=text, out=out,
        from_id=None if channel else types.PeerUser(1),
        entities=entities, views=10 if channel else None, forwards=2 if channel else None,
        offline=flags2 or None, via_business_bot_id=BIG if flags2 else None,
    )


def user(id, first, username=None, phone=None):
    return types.User(
        id=id, access_hash=HASH + id, first_name=first, username=username, phone=phone,
        status=types.UserStatusRecently(by_me=True), contact=True, bot_can_edit=True,
        color=types.PeerColor(color=3, background_emoji_id=BIG),
    )


CHANNEL = types.Channel(
    id=4242, title="News", photo=types.ChatPhotoEmpty(), date=1700000000, broadcast=True,
    access_hash=HASH, username="news", participants_count=3, stories_hidden=True,
)
STATE = types.updates.State(pts=120, qts=0, date=1700000100, seq=7, unread_count=3)
ENTITIES = [types.MessageEntityBold(offset=0, length=5), types.MessageEntityTextUrl(offset=6, length=4, url="https://example.org")]
MARKUP = types.ReplyInlineMarkup(rows=[
    types.KeyboardInlineButtonRow(buttons=[
        types.KeyboardInlineButton(text="yes", type=types.InlineButtonTypeCallback(data=b"\x01\x02\x03")),
        types.KeyboardInlineButton(text="site", type=types.InlineButtonTypeUrl(url="https://example.org")),
    ]),
    types.KeyboardInlineButtonRow(buttons=[]),
])

OBJECTS = {
    # strings at the lengths where the TL encoding changes
    "string_len_0": functions.contacts.ResolveUsernameRequest(username=""),
    "string_len_253": functions.contacts.ResolveUsernameRequest(username="a" * 253),
    "string_len_254": functions.contacts.ResolveUsernameRequest(username="b" * 254),
    "string_len_1000": functions.contacts.ResolveUsernameRequest(username="c" * 1000, referer="ref"),
    "bytes_len_300": functions.auth.ImportAuthorizationRequest(id=BIG, bytes=bytes(range(256)) + bytes(44)),
    # longs, doubles, Bools
    "long_above_2_53": types.InputPeerUser(user_id=BIG, access_hash=HASH),
    "long_extremes": types.InputPeerChannel(channel_id=2**63 - 1, access_hash=-(2**63)),
    "double_geo_point": types.GeoPoint(long=-122.4194155, lat=37.7749295, access_hash=HASH, accuracy_radius=15),
    "bool_fields": types.PeerNotifySettings(show_previews=True, silent=False, mute_until=2**31 - 1),
    # int128 / int256 (MTProto handshake)
    "req_pq_multi_int128": functions.ReqPqMultiRequest(nonce=NONCE),
    "res_pq": types.ResPQ(nonce=NONCE, server_nonce=-NONCE, pq=bytes([0x17, 0xED, 0x48, 0x94, 0x1A, 0x08, 0xF9, 0x81]),
                          server_public_key_fingerprints=[-3414540481677951611]),
    "p_q_inner_data_dc_int256": types.PQInnerDataDc(pq=b"\x17\xed\x48\x94\x1a\x08\xf9\x81", p=b"\x49\x4c\x55\x3b",
                                                    q=b"\x53\x91\x10\x73", nonce=NONCE, server_nonce=-NONCE,
                                                    new_nonce=NEW_NONCE, dc=2),
    "rpc_error": types.RpcError(error_code=420, error_message="FLOOD_WAIT_3"),
    "msgs_ack": types.MsgsAck(msg_ids=[BIG, 1, -1]),
    "bad_server_salt": types.BadServerSalt(bad_msg_id=BIG, bad_msg_seqno=3, error_code=48, new_server_salt=HASH),
    # flags: set, unset, flags2, nested vectors
    "message_flags_unset": types.Message(id=1, peer_id=types.PeerUser(2), date=3, message=""),
    "message_flags_set": message(10, "hello world", out=True, entities=ENTITIES),
    "message_flags2": message(11, "flags2", flags2=True),
    "user_flags2": user(555, "Bob", username="bob", phone="15550002"),
    "channel": CHANNEL,
    "nested_vectors_reply_markup": MARKUP,
    "dc_option_static_secret": types.DcOption(id=2, ip_address="127.0.0.1", port=4430, static=True, secret=bytes(16)),
    # every Updates form
    "updates_too_long": types.UpdatesTooLong(),
    "update_short_message": types.UpdateShortMessage(out=True, id=1, user_id=555, message="héllo 👋 мир", pts=57,
                                                     pts_count=1, date=1700000000, entities=ENTITIES),
    "update_short_chat_message": types.UpdateShortChatMessage(id=2, from_id=555, chat_id=77, message="hi all", pts=58,
                                                              pts_count=1, date=1700000001, via_bot_id=BIG),
    "update_short": types.UpdateShort(update=types.UpdateUserStatus(user_id=555, status=types.UserStatusRecently()),
                                      date=1700000002),
    "updates_combined": types.UpdatesCombined(
        updates=[types.UpdateReadHistoryInbox(peer=types.PeerUser(555), max_id=9, still_unread_count=0, pts=60,
                                              pts_count=1)],
        users=[], chats=[], date=1700000003, seq_start=8, seq=9),
    "updates": types.Updates(
        updates=[types.UpdateMessageID(id=5, random_id=HASH),
                 types.UpdateNewChannelMessage(message=message(5, "post", channel=4242), pts=31, pts_count=1)],
        users=[user(1, "Alice", username="alice")], chats=[CHANNEL], date=1700000004, seq=0),
    "update_short_sent_message": types.UpdateShortSentMessage(out=True, id=77, pts=58, pts_count=1, date=1700000005),
    # differences
    "difference_empty": types.updates.DifferenceEmpty(date=1700000006, seq=7),
    "difference": types.updates.Difference(
        new_messages=[message(20, "one"), message(21, "two", out=True, entities=ENTITIES)],
        new_encrypted_messages=[],
        other_updates=[types.UpdateDeleteMessages(messages=[1, 2, 3], pts=70, pts_count=3),
                       types.UpdateChannelTooLong(channel_id=4242, pts=33)],
        chats=[CHANNEL], users=[user(555, "Bob")], state=STATE),
    "difference_slice": types.updates.DifferenceSlice(
        new_messages=[message(22, "three")], new_encrypted_messages=[], other_updates=[], chats=[], users=[],
        intermediate_state=STATE),
    "difference_too_long": types.updates.DifferenceTooLong(pts=1000),
    "channel_difference": types.updates.ChannelDifference(
        final=True, pts=40, timeout=30, new_messages=[message(6, "post 6", channel=4242)],
        other_updates=[types.UpdateDeleteChannelMessages(channel_id=4242, messages=[4], pts=40, pts_count=1)],
        chats=[CHANNEL], users=[]),
    "channel_difference_empty": types.updates.ChannelDifferenceEmpty(pts=40, final=True, timeout=30),
    # functions real clients send
    "invoke_with_layer_init_connection": functions.InvokeWithLayerRequest(layer=229, query=functions.InitConnectionRequest(
        api_id=12345, device_model="PC", system_version="Linux", app_version="1.45.0", system_lang_code="en",
        lang_pack="", lang_code="en", query=functions.help.GetConfigRequest())),
    "send_message": functions.messages.SendMessageRequest(peer=types.InputPeerUser(user_id=555, access_hash=HASH),
                                                          message="yo", random_id=BIG, entities=[]),
    "get_history": functions.messages.GetHistoryRequest(peer=types.InputPeerChannel(channel_id=4242, access_hash=HASH),
                                                        offset_id=100, offset_date=0, add_offset=-10, limit=100,
                                                        max_id=0, min_id=0, hash=0),
    "get_difference": functions.updates.GetDifferenceRequest(pts=57, date=1700000000, qts=-1, pts_total_limit=1000),
    "get_channel_difference": functions.updates.GetChannelDifferenceRequest(
        channel=types.InputChannel(channel_id=4242, access_hash=HASH), filter=types.ChannelMessagesFilterEmpty(),
        pts=21, limit=100, force=True),
    "get_users_self": functions.users.GetUsersRequest(id=[types.InputUserSelf()]),
}


def main():
    objects = {name: bytes(obj).hex() for name, obj in OBJECTS.items()}
    print(json.dumps({"telethon": telethon.__version__, "objects": objects}, indent=1, sort_keys=True))


main()
