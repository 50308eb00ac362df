#!/usr/bin/env python3
"""kurigram 2.2 (a Pyrogram fork) against `synccore server --seed dev --login-code 12345`, through its high-level API
and its own update handlers, as a user-account developer writes them.

Usage: kurigram_flows.py PORT PUBLIC_KEY_PEM SESSION_DIR

Alice, Bob and Carol log in (Alice twice: a second session watches her own changes). Each step is observed live by
another user or session:
- private messages: a text reaches Bob's message handler with its sender; Alice's edit reaches his edited-message
  handler; Bob's reply reaches Alice with the message it quotes fetched (`reply_to_message`); Alice's deletion
  reaches his deleted-messages handler;
- a forward of Bob's reply into @lounge reaches Carol naming Bob as its origin, at his message's date;
- pins: Alice pins in her private chat with Bob (her second session is told), and a post of @lounge, which
  `get_chat` then shows as the pinned message;
- a basic group: created with Bob (his handler sees it created, with its members), Carol added (Bob sees her among
  the new members), Carol removed (Bob sees her leave);
- @lounge: Alice bans Carol (Bob sees her removed) and lifts the ban;
- profile: Alice's new bio and username, read back by Bob;
- search: Bob finds Alice's message by a word of it;
- admin rights: Alice promotes Bob in @lounge with two rights (he reads them back) and demotes him;
- contacts and blocks: Alice adds Bob and lists him; her other session is told of it, and of her blocking and
  unblocking Carol;
- a draft and a mute (raw calls: kurigram has no high-level API for them) reach Alice's other session live;
- presence: Alice going online reaches Bob's user-status handler.
Fails on any error a client logs (a handler that raised, an update it could not read). Talks only to 127.0.0.1;
every step is bounded by a timeout.
"""
import asyncio
import time

from pyrogram import enums, raw
from pyrogram.handlers import DeletedMessagesHandler, EditedMessageHandler, MessageHandler, RawUpdateHandler, UserStatusHandler
from pyrogram.types import ChatAdministratorRights, ReplyParameters

from kurigram_common import STEP, eventually, no_errors, started


class Seen:
    """What one client's handlers received."""

    def __init__(self, client):
        self.messages, self.edited, self.deleted, self.raw, self.statuses = [], [], [], [], []
        client.add_handler(MessageHandler(lambda c, m: self.messages.append(m)))
        client.add_handler(EditedMessageHandler(lambda c, m: self.edited.append(m)))
        client.add_handler(DeletedMessagesHandler(lambda c, ms: self.deleted.extend(ms)))
        client.add_handler(RawUpdateHandler(lambda c, u, users, chats: self.raw.append(u)), group=1)
        client.add_handler(UserStatusHandler(lambda c, user: self.statuses.append(user)), group=2)

    def raw_update(self, kind, predicate=lambda u: True):
        return next((u for u in self.raw if isinstance(u, kind) and predicate(u)), None)

    def message(self, predicate):
        return next((m for m in self.messages if predicate(m)), None)


async def private_messages(alice, bob, at_alice, at_bob):
    sent = await alice.send_message("bob", "hello bob, from kurigram")
    await eventually(lambda: at_bob.message(lambda m: m.text == "hello bob, from kurigram"), "Bob's message")
    got = at_bob.message(lambda m: m.text == "hello bob, from kurigram")
    assert got.from_user and got.from_user.id == alice.me.id, f"sender: {got.from_user}"

    await alice.edit_message_text("bob", sent.id, "hello bob, edited")
    await eventually(lambda: any(m.text == "hello bob, edited" for m in at_bob.edited), "Bob's edited message")

    answer = await bob.send_message("alice", "and hello to you", reply_parameters=ReplyParameters(message_id=got.id))
    await eventually(lambda: at_alice.message(lambda m: m.text == "and hello to you"), "Alice's reply")
    reply = at_alice.message(lambda m: m.text == "and hello to you")
    assert reply.reply_to_message_id == sent.id, f"reply to {reply.reply_to_message_id}, not {sent.id}"
    quoted = reply.reply_to_message or (await alice.get_messages("bob", reply_to_message_ids=reply.id))
    assert quoted and quoted.id == sent.id, f"the quoted message: {quoted}"

    doomed = await alice.send_message("bob", "to be deleted")
    await eventually(lambda: at_bob.message(lambda m: m.text == "to be deleted"), "the doomed message")
    doomed_at_bob = at_bob.message(lambda m: m.text == "to be deleted").id
    await alice.delete_messages("bob", doomed.id, revoke=True)
    await eventually(lambda: any(m.id == doomed_at_bob for m in at_bob.deleted), "Bob's deletion")
    return answer


async def forward_into_lounge(bob, at_carol, answer):
    await bob.forward_messages("lounge", "alice", answer.id)
    await eventually(lambda: at_carol.message(lambda m: m.text == "and hello to you" and m.forward_origin), "Carol's forward")
    forwarded = at_carol.message(lambda m: m.text == "and hello to you" and m.forward_origin)
    origin = forwarded.forward_origin
    sender = getattr(origin, "sender_user", None)
    assert sender and sender.id == bob.me.id, f"forward origin: {origin}"
    assert abs(int(origin.date.timestamp()) - int(answer.date.timestamp())) <= 1, f"origin date {origin.date} vs {answer.date}"


async def pins(alice, alice_elsewhere_seen):
    note = await alice.send_message("bob", "pin me")
    await alice.pin_chat_message("bob", note.id, both_sides=True)
    await eventually(lambda: any(isinstance(u, raw.types.UpdatePinnedMessages) and note.id in u.messages
                                 for u in alice_elsewhere_seen.raw), "the pin at Alice's other session")
    post = await alice.send_message("lounge", "the rules of the lounge")
    await alice.pin_chat_message("lounge", post.id, disable_notification=True)
    lounge = await alice.get_chat("lounge")
    assert lounge.pinned_message and lounge.pinned_message.id == post.id, f"pinned: {lounge.pinned_message}"


async def basic_group(alice, at_bob):
    group = await alice.create_group("kurigram group", ["bob"])
    await eventually(lambda: at_bob.message(lambda m: m.chat.id == group.id and m.group_chat_created), "the group at Bob")
    created = at_bob.message(lambda m: m.chat.id == group.id and m.group_chat_created)
    assert created.from_user and created.from_user.id == alice.me.id, f"created by {created.from_user}"
    await alice.add_chat_members(group.id, "carol")
    await eventually(lambda: at_bob.message(lambda m: m.chat.id == group.id and m.new_chat_members), "Carol's arrival at Bob")
    arrived = at_bob.message(lambda m: m.chat.id == group.id and m.new_chat_members)
    assert [u.username for u in arrived.new_chat_members] == ["carol"], f"new members: {arrived.new_chat_members}"
    await alice.ban_chat_member(group.id, "carol")
    await eventually(lambda: at_bob.message(lambda m: m.chat.id == group.id and m.left_chat_member), "Carol's leaving at Bob")
    members = [m.user.username async for m in alice.get_chat_members(group.id)]
    assert sorted(members) == ["alice", "bob"], f"members: {members}"


async def lounge_ban(alice, at_bob):
    lounge = await alice.get_chat("lounge")
    before = len(at_bob.messages)
    await alice.ban_chat_member("lounge", "carol")
    await eventually(lambda: any(m.chat.id == lounge.id and m.left_chat_member for m in at_bob.messages[before:]),
                     "Carol's ban at Bob")
    member = await alice.get_chat_member("lounge", "carol")
    assert member.status == enums.ChatMemberStatus.BANNED, f"status {member.status}"
    await alice.unban_chat_member("lounge", "carol")
    await alice.add_chat_members("lounge", "carol")


async def profile(alice, bob):
    await alice.update_profile(bio="writes from kurigram")
    stamp = str(int(time.time()))[-6:]
    await alice.set_username(f"alice_k{stamp}")
    seen = await bob.get_chat(alice.me.id)
    assert seen.bio == "writes from kurigram", f"bio: {seen.bio}"
    assert seen.username == f"alice_k{stamp}", f"username: {seen.username}"
    await alice.set_username("alice")


async def admin_rights(alice, bob):
    await alice.promote_chat_member("lounge", "bob", ChatAdministratorRights(can_pin_messages=True, can_delete_messages=True))
    member = await bob.get_chat_member("lounge", "bob")
    assert member.status == enums.ChatMemberStatus.ADMINISTRATOR, f"status {member.status}"
    assert member.privileges.can_pin_messages and not member.privileges.can_promote_members, f"privileges {member.privileges}"
    await alice.promote_chat_member("lounge", "bob", ChatAdministratorRights(can_manage_chat=False))   # no right at all: a demotion
    member = await bob.get_chat_member("lounge", "bob")
    assert member.status == enums.ChatMemberStatus.MEMBER, f"status after the demotion {member.status}"


async def contacts_and_blocks(alice, at_elsewhere):
    await alice.add_contact("bob", "Bobby", "Tables")
    await eventually(lambda: at_elsewhere.raw_update(raw.types.UpdatePeerSettings), "the contact at Alice's other session")
    listed = await alice.get_contacts()
    assert [(u.username, u.first_name) for u in listed] == [("bob", "Bobby")], f"contacts: {[(u.username, u.first_name) for u in listed]}"
    await alice.block_user("carol")
    await eventually(lambda: at_elsewhere.raw_update(raw.types.UpdatePeerBlocked, lambda u: u.blocked), "the block at Alice's other session")
    await alice.unblock_user("carol")
    await eventually(lambda: at_elsewhere.raw_update(raw.types.UpdatePeerBlocked, lambda u: not u.blocked), "the unblock there")


async def draft_and_notify_settings(alice, at_elsewhere):
    bob_peer = await alice.resolve_peer("bob")
    await alice.invoke(raw.functions.messages.SaveDraft(peer=bob_peer, message="half a thought"))
    await eventually(lambda: at_elsewhere.raw_update(raw.types.UpdateDraftMessage,
                                                     lambda u: getattr(u.draft, "message", "") == "half a thought"),
                     "the draft at Alice's other session")
    await alice.invoke(raw.functions.account.UpdateNotifySettings(
        peer=raw.types.InputNotifyPeer(peer=bob_peer), settings=raw.types.InputPeerNotifySettings(mute_until=2**31 - 1)))
    await eventually(lambda: at_elsewhere.raw_update(raw.types.UpdateNotifySettings,
                                                     lambda u: getattr(u.notify_settings, "mute_until", 0) == 2**31 - 1),
                     "the mute at Alice's other session")


async def presence(alice, at_bob):
    await alice.update_status(offline=True)
    await asyncio.sleep(2.5)   # the server tells one change per 2 s of a user
    await alice.update_status(offline=False)
    await eventually(lambda: any(u.id == alice.me.id and u.status == enums.UserStatus.ONLINE for u in at_bob.statuses),
                     "Alice online at Bob")


async def search(bob):
    found = [m async for m in bob.search_messages("alice", query="edited")]
    assert [m.text for m in found] == ["hello bob, edited"], f"found: {[m.text for m in found]}"


async def main():
    alice, bob, carol = await started("alice", "bob", "carol")
    (alice_elsewhere,) = await started("alice", suffix="-elsewhere")
    at_alice, at_bob, at_carol, at_elsewhere = Seen(alice), Seen(bob), Seen(carol), Seen(alice_elsewhere)
    answer = await asyncio.wait_for(private_messages(alice, bob, at_alice, at_bob), STEP * 3)
    no_errors()
    for name, step in [
        ("forward into @lounge", lambda: forward_into_lounge(bob, at_carol, answer)),
        ("pins", lambda: pins(alice, at_elsewhere)),
        ("basic group", lambda: basic_group(alice, at_bob)),
        ("@lounge ban", lambda: lounge_ban(alice, at_bob)),
        ("profile", lambda: profile(alice, bob)),
        ("search", lambda: search(bob)),
        ("admin rights", lambda: admin_rights(alice, bob)),
        ("contacts and blocks", lambda: contacts_and_blocks(alice, at_elsewhere)),
        ("draft and notify settings", lambda: draft_and_notify_settings(alice, at_elsewhere)),
        ("presence", lambda: presence(alice, at_bob)),
    ]:
        try:
            await asyncio.wait_for(step(), STEP * 2)
        except BaseException as error:
            raise AssertionError(f"{name}: {error!r}") from error
        no_errors()
    for c in (alice, bob, carol, alice_elsewhere):
        await c.stop()
    no_errors()
    print("kurigram: private messages, edits, replies with their quotes and deletions live; a forward with its origin; "
          "pins told to the other session and shown by get_chat; a basic group's members arriving and leaving; "
          "a ban in @lounge; profile changes read back; search; admin rights given and taken; a contact, a block and an unblock, "
          "a draft and a mute told to the other session; presence live — no client logged an error")


asyncio.run(main())
