#!/usr/bin/env python3
"""Telethon 1.45 drafts and notification settings on `synccore server --seed dev --login-code 12345`, across two sessions.

Usage: telethon_chat_settings.py PORT PUBLIC_KEY_PEM SESSION_DIR

Alice, logged in twice, saves a draft in her chat with Bob (SaveDraftRequest) and mutes it (UpdateNotifySettingsRequest):
her other session's raw handler sees UpdateDraftMessage and UpdateNotifySettings live; get_drafts lists the draft,
iter_dialogs shows it with the dialog and GetNotifySettingsRequest the mute. Clearing the draft and unmuting are told
the same way. Talks only to 127.0.0.1; every step is bounded by a timeout.
"""
import asyncio
import os
import sys

from telethon import events, functions, types

from telethon_replies import STEP, alice_and_bob, make_client


async def main():
    alice, bob = await alice_and_bob("chat-settings")
    port, session_dir = int(sys.argv[1]), sys.argv[3]
    elsewhere = make_client(os.path.join(session_dir, "alice-chat-settings-2"), port)
    await asyncio.wait_for(elsewhere.start(phone="+15550001", code_callback=lambda: "12345"), STEP)
    bob_me = await bob.get_me()
    told = asyncio.Queue()

    async def on_raw(update):
        if isinstance(update, (types.UpdateDraftMessage, types.UpdateNotifySettings)):
            told.put_nowait(update)

    elsewhere.add_event_handler(on_raw, events.Raw)
    await asyncio.wait_for(elsewhere.catch_up(), STEP)
    await asyncio.wait_for(alice.send_message("bob", "about the draft"), STEP)
    bob_peer = await alice.get_input_entity("bob")

    await asyncio.wait_for(alice(functions.messages.SaveDraftRequest(peer=bob_peer, message="half a thought")), STEP)
    update = await asyncio.wait_for(told.get(), STEP)
    assert isinstance(update, types.UpdateDraftMessage) and update.draft.message == "half a thought", update
    drafts = await asyncio.wait_for(alice.get_drafts(), STEP)
    assert [d.text for d in drafts] == ["half a thought"], drafts
    dialogs = await asyncio.wait_for(alice.get_dialogs(), STEP)
    with_bob = next(d for d in dialogs if d.id == bob_me.id)
    assert with_bob.draft.text == "half a thought", with_bob.draft
    print("drafts: the other session saw UpdateDraftMessage live; get_drafts and the dialog show it")

    muted = types.InputPeerNotifySettings(mute_until=2**31 - 1, silent=True)
    await asyncio.wait_for(alice(functions.account.UpdateNotifySettingsRequest(peer=types.InputNotifyPeer(bob_peer), settings=muted)), STEP)
    update = await asyncio.wait_for(told.get(), STEP)
    assert isinstance(update, types.UpdateNotifySettings) and update.notify_settings.mute_until is not None, update
    read = await asyncio.wait_for(elsewhere(functions.account.GetNotifySettingsRequest(peer=types.InputNotifyPeer(bob_peer))), STEP)
    assert read.silent and read.mute_until is not None, read
    print("settings: the other session saw UpdateNotifySettings live and reads the mute")

    await asyncio.wait_for(alice(functions.messages.SaveDraftRequest(peer=bob_peer, message="")), STEP)
    update = await asyncio.wait_for(told.get(), STEP)
    assert isinstance(update.draft, types.DraftMessageEmpty), update
    await asyncio.wait_for(alice(functions.account.UpdateNotifySettingsRequest(
        peer=types.InputNotifyPeer(bob_peer), settings=types.InputPeerNotifySettings(mute_until=0))), STEP)
    update = await asyncio.wait_for(told.get(), STEP)
    assert update.notify_settings.mute_until.timestamp() == 0, update   # Telethon gives dates as datetimes
    print("drafts and settings: clearing and unmuting were told the same way")
    for client in (alice, bob, elsewhere):
        await client.disconnect()


asyncio.run(main())
