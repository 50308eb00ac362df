#!/usr/bin/env python3
"""Telethon 1.45 contacts, blocks and forwards on `synccore server --seed dev --login-code 12345`, as a user or bot developer
uses them.

Usage: telethon_contacts.py PORT PUBLIC_KEY_PEM SESSION_DIR

Alice imports Bob by phone (ImportContactsRequest: imported, with her client_id) and a phone of nobody (not imported);
GetContactsRequest lists Bob, not mutual, and answers ContactsNotModified to the list's hash. Bob adds Alice by id
(AddContactRequest): his raw handler sees UpdatePeerSettings for her live (no add-contact bar), both lists say mutual,
and Bob sees her phone. SearchRequest finds Bob among Alice's results by
his saved name and Carol by her username. Bob blocks Alice (BlockRequest): his raw handler sees UpdatePeerBlocked
live, GetBlockedRequest lists her, and what she sends meanwhile never reaches him; after UnblockRequest her next
message does. Alice deletes Bob (DeleteContactsRequest); Bob deletes Alice and his handler sees the add-contact bar
offered again. Alice forwards her own message and a @news post to Bob
(forward_messages): Bob's handler sees each with its fwd_from (Alice; the channel and its post). Talks only to
127.0.0.1; every step is bounded by a timeout.
"""
import asyncio

from telethon import events, functions, types

from telethon_replies import STEP, alice_and_bob, refused


async def main():
    alice, bob = await alice_and_bob("contacts")
    me, bob_me = await alice.get_me(), await bob.get_me()
    blocks_at_bob, texts_at_bob, settings_at_bob = asyncio.Queue(), asyncio.Queue(), asyncio.Queue()

    async def on_raw(update):
        if isinstance(update, types.UpdatePeerBlocked):
            blocks_at_bob.put_nowait(update)
        if isinstance(update, types.UpdatePeerSettings):
            settings_at_bob.put_nowait(update)

    async def settings_of_alice(offers_add):
        """The next UpdatePeerSettings about Alice saying `offers_add` (the answer and the push may both carry it)."""
        while True:
            update = await asyncio.wait_for(settings_at_bob.get(), STEP)
            if update.peer.user_id == me.id and bool(update.settings.add_contact) == offers_add:
                return update

    async def on_message(event):
        if event.sender_id == me.id:
            texts_at_bob.put_nowait(event.message)

    bob.add_event_handler(on_raw, events.Raw)
    bob.add_event_handler(on_message, events.NewMessage(incoming=True))
    await asyncio.wait_for(bob.catch_up(), STEP)

    imported = await asyncio.wait_for(alice(functions.contacts.ImportContactsRequest([
        types.InputPhoneContact(client_id=41, phone="+15550002", first_name="Bobby", last_name="Tables"),
        types.InputPhoneContact(client_id=42, phone="+19990000", first_name="Nobody", last_name=""),
    ])), STEP)
    assert [(c.user_id, c.client_id) for c in imported.imported] == [(bob_me.id, 41)], imported
    assert imported.users[0].contact and not imported.users[0].mutual_contact, imported.users
    assert imported.users[0].first_name == "Bobby", "a contact is shown by the name Alice saved"
    listed = await asyncio.wait_for(alice(functions.contacts.GetContactsRequest(hash=0)), STEP)
    assert [(c.user_id, c.mutual) for c in listed.contacts] == [(bob_me.id, False)], listed
    again = await asyncio.wait_for(alice(functions.contacts.GetContactsRequest(hash=bob_me.id)), STEP)
    assert isinstance(again, types.contacts.ContactsNotModified), again
    print("contacts: Alice imported Bob by phone; the list and its hash")

    await asyncio.wait_for(bob(functions.contacts.AddContactRequest(id="alice", first_name="Al", last_name="", phone="")), STEP)
    await settings_of_alice(offers_add=False)
    listed = await asyncio.wait_for(alice(functions.contacts.GetContactsRequest(hash=0)), STEP)
    assert [(c.user_id, c.mutual) for c in listed.contacts] == [(bob_me.id, True)], listed
    alice_at_bob = await asyncio.wait_for(bob(functions.users.GetUsersRequest(["alice"])), STEP)
    assert alice_at_bob[0].mutual_contact and alice_at_bob[0].phone == "15550001", alice_at_bob
    await refused(bob(functions.contacts.AddContactRequest(id="alice", first_name="", last_name="", phone="")), "CONTACT_NAME_EMPTY")
    found = await asyncio.wait_for(alice(functions.contacts.SearchRequest(q="tab", limit=10)), STEP)
    assert [p.user_id for p in found.my_results] == [bob_me.id], found
    found = await asyncio.wait_for(alice(functions.contacts.SearchRequest(q="car", limit=10)), STEP)
    assert [u.username for u in found.users] == ["carol"] and not found.my_results, found
    print("contacts: Bob added Alice by id (mutual both ways, her phone shown); search by saved name and username")

    await asyncio.wait_for(bob(functions.contacts.BlockRequest(id="alice")), STEP)
    blocked = await asyncio.wait_for(blocks_at_bob.get(), STEP)
    assert blocked.blocked and blocked.peer_id.user_id == me.id, blocked
    listed = await asyncio.wait_for(bob(functions.contacts.GetBlockedRequest(offset=0, limit=10)), STEP)
    assert [b.peer_id.user_id for b in listed.blocked] == [me.id], listed
    await asyncio.wait_for(alice.send_message("bob", "while blocked"), STEP)
    await asyncio.wait_for(bob(functions.contacts.UnblockRequest(id="alice")), STEP)
    unblocked = await asyncio.wait_for(blocks_at_bob.get(), STEP)
    assert not unblocked.blocked, unblocked
    await asyncio.wait_for(alice.send_message("bob", "after the block"), STEP)
    text = (await asyncio.wait_for(texts_at_bob.get(), STEP)).message
    assert text == "after the block", f"Bob received {text!r} first"
    print("blocks: Bob saw UpdatePeerBlocked live both ways; Alice's message while blocked never reached him")

    await asyncio.wait_for(alice(functions.contacts.DeleteContactsRequest([bob_me.id])), STEP)
    listed = await asyncio.wait_for(alice(functions.contacts.GetContactsRequest(hash=0)), STEP)
    assert listed.contacts == [], listed
    await asyncio.wait_for(bob(functions.contacts.DeleteContactsRequest(["alice"])), STEP)
    await settings_of_alice(offers_add=True)
    print("contacts: Bob's handler saw UpdatePeerSettings when he added and removed Alice")

    own = await asyncio.wait_for(alice.send_message("bob", "pass it on"), STEP)
    assert (await asyncio.wait_for(texts_at_bob.get(), STEP)).message == "pass it on"
    copies = await asyncio.wait_for(alice.forward_messages("bob", own), STEP)
    assert copies.fwd_from is not None and copies.fwd_from.from_id.user_id == me.id, copies
    seen = await asyncio.wait_for(texts_at_bob.get(), STEP)
    assert seen.message == "pass it on" and seen.fwd_from.from_id.user_id == me.id, seen
    post = await asyncio.wait_for(alice.send_message("news", "forwarded news"), STEP)
    await asyncio.wait_for(alice.forward_messages("bob", post), STEP)
    seen = await asyncio.wait_for(texts_at_bob.get(), STEP)
    assert seen.message == "forwarded news" and seen.fwd_from.channel_post == post.id, seen
    assert isinstance(seen.fwd_from.from_id, types.PeerChannel), seen.fwd_from
    print("forwards: Bob received Alice's message and a @news post with their fwd_from headers")
    await alice.disconnect()
    await bob.disconnect()


asyncio.run(main())
