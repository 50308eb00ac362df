#!/usr/bin/env python3
"""Telethon 1.45 pages the chat list of `synccore server --seed dev --login-code 12345` with iter_dialogs.

Usage: telethon_dialogs.py PORT PUBLIC_KEY_PEM SESSION_DIR

Alice creates 250 basic groups with Bob (each a dialog whose top message is the group's service message); Bob,
logged in on a fresh session, lists his dialogs with iter_dialogs, which pages messages.getDialogs by
offset_date/offset_id/offset_peer 100 at a time: every group must come exactly once, newest first, and the count
Telethon reads from the slices must match. Bob pins two of the groups first (ToggleDialogPinRequest): they come at
the top, flagged pinned, newest pin first, and not again among the others. Talks only to 127.0.0.1; every step is bounded by a timeout.
"""
import asyncio
import os
import sys

from telethon import TelegramClient, connection, functions, types
from telethon.crypto import rsa
from telethon.sessions import SQLiteSession

STEP = 60
GROUPS = 250


def make_client(path, port):
    session = SQLiteSession(path)
    if session.auth_key is None:
        session.set_dc(2, "127.0.0.1", port)
    return TelegramClient(session, 12345, "0123456789abcdef", connection=connection.ConnectionTcpIntermediate,
                          connection_retries=2, retry_delay=0, timeout=10, receive_updates=False)


async def main():
    port, pem_path, session_dir = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    with open(pem_path) as f:
        rsa.add_key(f.read(), old=False)
    os.makedirs(session_dir, exist_ok=True)
    alice = make_client(os.path.join(session_dir, "alice-dialogs"), port)
    bob = make_client(os.path.join(session_dir, "bob-dialogs"), port)
    await asyncio.wait_for(alice.start(phone="+15550001", code_callback=lambda: "12345"), STEP)
    await asyncio.wait_for(bob.start(phone="+15550002", code_callback=lambda: "12345"), STEP)
    bob_for_alice = await asyncio.wait_for(alice.get_input_entity("bob"), STEP)
    titles = [f"dialogs {index}" for index in range(GROUPS)]
    chat_ids = []
    for title in titles:
        created = await asyncio.wait_for(alice(functions.messages.CreateChatRequest(users=[bob_for_alice], title=title)), STEP)
        chat_ids.append(created.updates.chats[0].id)
    for index in (100, 0):
        await asyncio.wait_for(bob(functions.messages.ToggleDialogPinRequest(peer=types.InputPeerChat(chat_ids[index]), pinned=True)), STEP)

    dialogs = await asyncio.wait_for(bob.get_dialogs(limit=None), STEP)
    assert [d.name for d in dialogs if d.pinned] == [titles[0], titles[100]], [d.name for d in dialogs[:3]]
    assert [d.name for d in dialogs[:2]] == [titles[0], titles[100]], "the pinned dialogs are not first"
    ids = [dialog.id for dialog in dialogs]
    assert len(ids) == len(set(ids)), f"a dialog came twice: {len(ids)} listed, {len(set(ids))} distinct"
    seen = [dialog.name for dialog in dialogs if dialog.name in titles]
    assert sorted(seen) == sorted(titles), f"{len(seen)} of the {GROUPS} groups listed"
    # Newest first after the pins: the groups were created in order, so they come back in reverse.
    assert seen[2:] == [t for t in reversed(titles) if t not in (titles[0], titles[100])], "the groups are not newest first"
    dates = [dialog.date for dialog in dialogs if dialog.date is not None and not dialog.pinned]
    assert dates == sorted(dates, reverse=True), "the dialogs are not ordered by their top message"
    assert dialogs.total == len(dialogs), f"the slices said {dialogs.total}, {len(dialogs)} were listed"
    print(f"dialogs: iter_dialogs listed {len(dialogs)} dialogs once each, two pinned first, then newest first, the {GROUPS} new groups among them")
    await alice.disconnect()
    await bob.disconnect()


asyncio.run(main())
