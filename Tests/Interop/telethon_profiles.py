#!/usr/bin/env python3
"""Telethon 1.45 profiles on `synccore server --seed dev --login-code 12345`, as a user or bot developer changes them.

Usage: telethon_profiles.py PORT PUBLIC_KEY_PEM SESSION_DIR

Alice writes to Bob, then edits her profile (account.UpdateProfileRequest): Bob's raw update handler sees UpdateUserName
live, get_entity shows the new name and GetFullUserRequest her bio. Usernames are checked (a taken one is not
available, one Telegram would refuse is USERNAME_INVALID), a taken one is refused (USERNAME_OCCUPIED) and a free one
is set, reaching Bob live and resolving to Alice. Alice goes online and offline (account.UpdateStatusRequest): Bob's
handler sees UpdateUserStatus each time. Bob goes offline; Alice takes her old name back; Bob's catch_up
brings the change from the difference. A bio over 70 characters is refused (ABOUT_TOO_LONG). Talks only to 127.0.0.1;
every step is bounded by a timeout.
"""
import asyncio

from telethon import events, functions, types

from telethon_replies import STEP, alice_and_bob, refused


async def main():
    alice, bob = await alice_and_bob("profiles")
    me = await alice.get_me()
    names_at_bob, statuses_at_bob = asyncio.Queue(), asyncio.Queue()

    async def on_raw(update):
        if isinstance(update, types.UpdateUserName) and update.user_id == me.id:
            names_at_bob.put_nowait(update)
        if isinstance(update, types.UpdateUserStatus) and update.user_id == me.id:
            statuses_at_bob.put_nowait(update.status)

    bob.add_event_handler(on_raw, events.Raw)
    await asyncio.wait_for(bob.catch_up(), STEP)
    await asyncio.wait_for(alice.send_message("bob", "about my profile"), STEP)

    updated = await asyncio.wait_for(alice(functions.account.UpdateProfileRequest(first_name="Alicia", about="tea and tests")), STEP)
    assert updated.first_name == "Alicia", updated
    renamed = await asyncio.wait_for(names_at_bob.get(), STEP)
    assert renamed.first_name == "Alicia", renamed
    seen = await asyncio.wait_for(bob.get_entity(me.id), STEP)
    assert seen.first_name == "Alicia", seen
    full = await asyncio.wait_for(bob(functions.users.GetFullUserRequest(me.id)), STEP)
    assert full.full_user.about == "tea and tests", full.full_user
    print("profiles: Bob saw Alice's new name live (UpdateUserName) and reads her bio")

    assert await asyncio.wait_for(alice(functions.account.CheckUsernameRequest("carol")), STEP) is False
    assert await asyncio.wait_for(alice(functions.account.CheckUsernameRequest("wonderland")), STEP) is True
    await refused(alice(functions.account.CheckUsernameRequest("ab")), "USERNAME_INVALID")
    await refused(alice(functions.account.UpdateUsernameRequest("CAROL")), "USERNAME_OCCUPIED")
    await asyncio.wait_for(alice(functions.account.UpdateUsernameRequest("wonderland")), STEP)
    renamed = await asyncio.wait_for(names_at_bob.get(), STEP)
    assert [u.username for u in renamed.usernames] == ["wonderland"], renamed
    found = await asyncio.wait_for(bob.get_entity("wonderland"), STEP)
    assert found.id == me.id, found
    print("profiles: usernames are checked, a taken one refused, a free one set and resolved")

    await asyncio.wait_for(alice(functions.account.UpdateStatusRequest(offline=False)), STEP)
    online = await asyncio.wait_for(statuses_at_bob.get(), STEP)
    assert isinstance(online, types.UserStatusOnline), online
    await asyncio.wait_for(alice(functions.account.UpdateStatusRequest(offline=True)), STEP)
    offline = await asyncio.wait_for(statuses_at_bob.get(), STEP)
    assert isinstance(offline, types.UserStatusOffline), offline
    print("presence: Bob saw Alice go online and offline live (UpdateUserStatus)")

    await asyncio.wait_for(bob.disconnect(), STEP)
    await asyncio.wait_for(alice(functions.account.UpdateProfileRequest(first_name="Alice")), STEP)
    await asyncio.wait_for(alice(functions.account.UpdateUsernameRequest("alice")), STEP)
    await asyncio.wait_for(bob.connect(), STEP)
    await asyncio.wait_for(bob.catch_up(), STEP)
    # The difference lists what changed since Bob's state's date: a change in that same second again too (a state names
    # a date, not a seq), so the newest is looked for.
    caught = await asyncio.wait_for(names_at_bob.get(), STEP)
    while not (caught.first_name == "Alice" and [u.username for u in caught.usernames] == ["alice"]):
        caught = await asyncio.wait_for(names_at_bob.get(), STEP)
    print("profiles: Bob, offline while Alice took her old name back, caught up on it from the difference")

    await refused(alice(functions.account.UpdateProfileRequest(about="x" * 71)), "ABOUT_TOO_LONG")
    await alice.disconnect()
    await bob.disconnect()


asyncio.run(main())
