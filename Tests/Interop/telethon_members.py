#!/usr/bin/env python3
"""Telethon 1.45 group and channel membership on `synccore server --seed dev --login-code 12345`, as a bot developer uses it.

Usage: telethon_members.py PORT PUBLIC_KEY_PEM SESSION_DIR

In the @lounge supergroup Alice lists the members (get_participants, with the total), finds Carol by name (search=),
makes Bob an admin who may only pin and invite, titled "Pinner" (edit_admin with single rights and a title), reads his
rights back (get_permissions) and sees his kick refused (ChatAdminRequiredError); then promotes him with every right
(is_admin) and lists the admins; Bob kicks Carol (kick_participant: a ban then its lifting), who is no longer listed
and joins again; Alice mutes Carol (edit_permissions), who cannot write and is listed as restricted until Alice lifts
it, then mutes every member but herself by default (edit_permissions without a user). Alice creates a basic group with
Bob, adds Carol (AddChatUserRequest), lists the three (get_participants reads messages.getFullChat), removes Carol
(kick_participant), renames the group (EditChatTitleRequest) and mutes its members by default
(EditChatDefaultBannedRightsRequest: Telethon's edit_permissions takes supergroups only), which binds Bob and not her. Talks only to 127.0.0.1; every step is bounded by a timeout.
"""
import asyncio
import os
import sys

from telethon import errors, functions, types

from telethon_replies import STEP, alice_and_bob, make_client


async def main():
    alice, bob = await alice_and_bob("members")
    port, session_dir = int(sys.argv[1]), sys.argv[3]
    carol = make_client(os.path.join(session_dir, "carol-members"), port)
    await asyncio.wait_for(carol.start(phone="+15550003", code_callback=lambda: "12345"), STEP)
    me, bob_me, carol_me = await alice.get_me(), await bob.get_me(), await carol.get_me()

    members = await asyncio.wait_for(alice.get_participants("lounge"), STEP)
    assert {me.id, bob_me.id, carol_me.id} <= {u.id for u in members} and members.total == len(members), (members.total, len(members))
    found = await asyncio.wait_for(alice.get_participants("lounge", search="car"), STEP)
    assert [u.id for u in found] == [carol_me.id], found
    await asyncio.wait_for(alice.edit_admin("lounge", "bob", pin_messages=True, invite_users=True, title="Pinner"), STEP)
    perms = await asyncio.wait_for(alice.get_permissions("lounge", "bob"), STEP)
    assert perms.is_admin and perms.pin_messages and perms.invite_users, perms.participant
    assert not perms.ban_users and not perms.change_info and not perms.add_admins, perms.participant
    assert perms.participant.rank == "Pinner" and perms.participant.promoted_by == me.id, perms.participant
    await asyncio.wait_for(bob.get_dialogs(), STEP)
    try:
        await asyncio.wait_for(bob.kick_participant("lounge", "carol"), STEP)
        raise AssertionError("Bob kicked Carol without the right to ban users")
    except errors.ChatAdminRequiredError:
        pass
    print("members: Bob, an admin who may pin and invite, titled Pinner, could not kick Carol")
    await asyncio.wait_for(alice.edit_admin("lounge", "bob", is_admin=True, change_info=True, ban_users=True), STEP)
    perms = await asyncio.wait_for(alice.get_permissions("lounge", "bob"), STEP)
    assert perms.ban_users and perms.change_info and perms.add_admins, perms.participant
    admins = await asyncio.wait_for(alice.get_participants("lounge", filter=types.ChannelParticipantsAdmins()), STEP)
    assert {u.id for u in admins} == {me.id, bob_me.id}, admins
    print(f"members: @lounge listed {len(members)} members, Carol found by name, Bob promoted and listed among the admins")

    await asyncio.wait_for(bob.kick_participant("lounge", "carol"), STEP)
    members = await asyncio.wait_for(alice.get_participants("lounge"), STEP)
    assert carol_me.id not in {u.id for u in members}, "Carol is still listed after the kick"
    await asyncio.wait_for(carol(functions.channels.JoinChannelRequest("lounge")), STEP)
    members = await asyncio.wait_for(alice.get_participants("lounge"), STEP)
    assert carol_me.id in {u.id for u in members}, "Carol could not join again after the kick"

    await asyncio.wait_for(alice.edit_permissions("lounge", "carol", send_messages=False), STEP)
    await asyncio.wait_for(carol.get_dialogs(), STEP)
    try:
        await asyncio.wait_for(carol.send_message("lounge", "muted?"), STEP)
        raise AssertionError("Carol wrote while muted")
    except errors.ChatWriteForbiddenError:
        pass
    restricted = await asyncio.wait_for(alice.get_participants("lounge", filter=types.ChannelParticipantsBanned("")), STEP)
    assert [u.id for u in restricted] == [carol_me.id], restricted
    await asyncio.wait_for(alice.edit_permissions("lounge", "carol"), STEP)
    await asyncio.wait_for(carol.send_message("lounge", "unmuted"), STEP)
    await asyncio.wait_for(alice.edit_permissions("lounge", send_messages=False), STEP)
    try:
        await asyncio.wait_for(carol.send_message("lounge", "muted by default?"), STEP)
        raise AssertionError("Carol wrote while members were muted by default")
    except errors.ChatWriteForbiddenError:
        pass
    await asyncio.wait_for(alice.send_message("lounge", "the creator still writes"), STEP)
    await asyncio.wait_for(alice.edit_permissions("lounge"), STEP)
    await asyncio.wait_for(carol.send_message("lounge", "members write again"), STEP)
    print("members: Carol, muted (edit_permissions), could not write and was listed as restricted, then wrote once lifted; "
          "a default mute bound her too, not the creator")
    await asyncio.wait_for(alice.edit_admin("lounge", "bob", is_admin=False), STEP)
    print("members: Bob kicked Carol (ban, then lifted); she joined again; Bob demoted")

    created = await asyncio.wait_for(alice(functions.messages.CreateChatRequest(users=["bob"], title="Members test")), STEP)
    chat_id = created.updates.chats[0].id
    await asyncio.wait_for(alice(functions.messages.AddChatUserRequest(chat_id=chat_id, user_id="carol", fwd_limit=0)), STEP)
    group = await asyncio.wait_for(alice.get_entity(types.PeerChat(chat_id)), STEP)
    listed = await asyncio.wait_for(alice.get_participants(group), STEP)
    assert {u.id for u in listed} == {me.id, bob_me.id, carol_me.id}, listed
    await asyncio.wait_for(alice.kick_participant(group, "carol"), STEP)
    listed = await asyncio.wait_for(alice.get_participants(group), STEP)
    assert {u.id for u in listed} == {me.id, bob_me.id}, listed
    await asyncio.wait_for(alice(functions.messages.EditChatTitleRequest(chat_id=chat_id, title="Members test, renamed")), STEP)
    renamed = await asyncio.wait_for(alice.get_entity(types.PeerChat(chat_id)), STEP)
    assert renamed.title == "Members test, renamed", renamed
    print("members: a basic group gained Carol, listed three, lost her again and was renamed")
    # Telethon's edit_permissions takes supergroups only; a basic group's defaults are the raw request.
    muted = types.ChatBannedRights(until_date=None, send_messages=True)
    await asyncio.wait_for(alice(functions.messages.EditChatDefaultBannedRightsRequest(peer=group, banned_rights=muted)), STEP)
    try:
        await asyncio.wait_for(bob.send_message(types.PeerChat(chat_id), "muted in the group?"), STEP)
        raise AssertionError("Bob wrote while the group's members were muted by default")
    except errors.ChatWriteForbiddenError:
        pass
    as_bob = await asyncio.wait_for(bob.get_entity(types.PeerChat(chat_id)), STEP)
    assert as_bob.default_banned_rights and as_bob.default_banned_rights.send_messages, as_bob
    await asyncio.wait_for(alice.send_message(group, "the group's creator still writes"), STEP)
    free = types.ChatBannedRights(until_date=None)
    await asyncio.wait_for(alice(functions.messages.EditChatDefaultBannedRightsRequest(peer=group, banned_rights=free)), STEP)
    await asyncio.wait_for(bob.send_message(types.PeerChat(chat_id), "the group's members write again"), STEP)
    print("members: the basic group's default mute (EditChatDefaultBannedRightsRequest) bound Bob, who saw it on the group, "
          "not its creator")
    for client in (alice, bob, carol):
        await client.disconnect()


asyncio.run(main())
