#!/usr/bin/env python3
"""Telethon 1.45 stays in sync with `synccore server --seed dev --login-code 12345`.

Usage: telethon_sync.py PORT PUBLIC_KEY_PEM SESSION_DIR TRANSPORT

Alice and Bob log in (phone code), call get_me, Alice sends to Bob and Bob receives it live (updateShortMessage),
Bob pages the history with iter_messages, two requests go in one container, a 2,000-character message (gzipped
request), Bob joins @news and gets Alice's post live, Alice creates a basic group with Bob and writes in it,
then Bob goes offline, Alice sends a private message and a channel
post and Bob catches up on both on reconnect (getDifference, then getChannelDifference), and leaves @news again.
Talks only to 127.0.0.1; every step is bounded by a timeout. Prints one line per step, exits non-zero on failure.
"""
import asyncio
import os
import sys

from telethon import TelegramClient, connection, events, functions
from telethon.crypto import rsa
from telethon.sessions import SQLiteSession

TRANSPORTS = {
    "full": connection.ConnectionTcpFull,
    "abridged": connection.ConnectionTcpAbridged,
    "intermediate": connection.ConnectionTcpIntermediate,
    "obfuscated": connection.ConnectionTcpObfuscated,
}
STEP = 30


def make_client(path, port, transport):
    session = SQLiteSession(path)
    if session.auth_key is None:
        session.set_dc(2, "127.0.0.1", port)
    return TelegramClient(session, 12345, "0123456789abcdef", connection=transport,
                          connection_retries=2, retry_delay=0, timeout=10, catch_up=True)


async def login(client, phone):
    await asyncio.wait_for(client.start(phone=phone, code_callback=lambda: "12345"), STEP)
    return await asyncio.wait_for(client.get_me(), STEP)


async def main():
    port, pem_path, session_dir, transport_name = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    transport = TRANSPORTS[transport_name]
    with open(pem_path) as f:
        rsa.add_key(f.read(), old=False)
    os.makedirs(session_dir, exist_ok=True)
    alice = make_client(os.path.join(session_dir, f"alice-{transport_name}"), port, transport)
    bob = make_client(os.path.join(session_dir, f"bob-{transport_name}"), port, transport)

    me_alice = await login(alice, "+15550001")
    me_bob = await login(bob, "+15550002")
    assert me_alice.username == "alice" and me_bob.username == "bob", (me_alice, me_bob)
    print(f"{transport_name}: login ok (alice {me_alice.id}, bob {me_bob.id})")

    received = asyncio.Queue()

    async def on_message(event):
        received.put_nowait(event.message)

    bob.add_event_handler(on_message, events.NewMessage(incoming=True))
    # Catch-up needs a known state first (Telethon fetches it on the first update it processes).
    await asyncio.wait_for(bob.catch_up(), STEP)

    text = f"hello bob over {transport_name}"
    sent = await asyncio.wait_for(alice.send_message("bob", text), STEP)
    live = await asyncio.wait_for(received.get(), STEP)
    assert live.message == text and live.sender_id == me_alice.id, live
    print(f"{transport_name}: live message ok (alice's id {sent.id}, bob's id {live.id})")

    for i in range(25):
        await asyncio.wait_for(alice.send_message("bob", f"page {i}"), STEP)
    for _ in range(25):
        await asyncio.wait_for(received.get(), STEP)
    history = [m async for m in bob.iter_messages("alice", limit=None, wait_time=0)]
    ids = [m.id for m in history]
    assert ids == sorted(ids, reverse=True) and len(ids) == len(set(ids)) and len(ids) >= 26, ids
    assert history[0].message == "page 24", history[0].message
    small = [m async for m in bob.iter_messages("alice", limit=7)]
    assert [m.id for m in small] == ids[:7], (small, ids[:7])
    print(f"{transport_name}: history ok ({len(ids)} messages, pages of 100 and 7)")

    both = await asyncio.wait_for(asyncio.gather(alice(functions.help.GetConfigRequest()),
                                                 alice(functions.updates.GetStateRequest())), STEP)
    assert both[0].this_dc == 2 and both[1].pts > 0, both
    long_text = "x" * 2000
    await asyncio.wait_for(alice.send_message("bob", long_text), STEP)
    long_message = await asyncio.wait_for(received.get(), STEP)
    assert long_message.message == long_text
    print(f"{transport_name}: container and 2,000-character gzipped request ok")

    await asyncio.wait_for(bob(functions.channels.JoinChannelRequest("news")), STEP)
    post = f"news over {transport_name}"
    await asyncio.wait_for(alice.send_message("news", post), STEP)
    live_post = await asyncio.wait_for(received.get(), STEP)
    assert live_post.message == post and live_post.is_channel and live_post.post, live_post
    print(f"{transport_name}: joined @news, channel post live ok")

    invited = await asyncio.wait_for(alice(functions.messages.CreateChatRequest(users=["bob"], title=f"group {transport_name}")), STEP)
    group = invited.updates.chats[0]
    group_text = f"hello group over {transport_name}"
    await asyncio.wait_for(alice.send_message(group, group_text), STEP)
    live_group = await asyncio.wait_for(received.get(), STEP)
    assert live_group.message == group_text and live_group.is_group and live_group.chat_id == -group.id, live_group
    print(f"{transport_name}: basic group created, message live ok")

    await bob.disconnect()
    offline_text = f"while you were away ({transport_name})"
    offline_post = f"news while you were away ({transport_name})"
    await asyncio.wait_for(alice.send_message("bob", offline_text), STEP)
    await asyncio.wait_for(alice.send_message("news", offline_post), STEP)
    bob = make_client(os.path.join(session_dir, f"bob-{transport_name}"), port, transport)
    bob.add_event_handler(on_message, events.NewMessage(incoming=True))
    await asyncio.wait_for(bob.connect(), STEP)
    await asyncio.wait_for(bob.catch_up(), STEP)
    caught = sorted([(await asyncio.wait_for(received.get(), STEP)).message for _ in range(2)])
    assert caught == sorted([offline_text, offline_post]), caught
    print(f"{transport_name}: offline catch-up ok (getDifference, then getChannelDifference)")
    await asyncio.wait_for(bob(functions.channels.LeaveChannelRequest("news")), STEP)

    await alice.disconnect()
    await bob.disconnect()


asyncio.run(main())
