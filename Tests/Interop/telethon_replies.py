#!/usr/bin/env python3
"""Telethon 1.45 replies and pins on `synccore server --seed dev --login-code 12345`, as a user or bot developer writes them.

Usage: telethon_replies.py PORT PUBLIC_KEY_PEM SESSION_DIR

Alice writes to Bob; Bob answers with message.reply(): Alice's live handler sees the answer as a reply to her own
copy of the question (the two boxes number it differently), and get_reply_message() fetches it. In @lounge Bob
replies to Alice's post with send_message(reply_to=...); iter_messages shows the reply to the channel's id. A reply to
a message the chat does not hold is refused (REPLY_MESSAGE_ID_INVALID), and a layer-229 method the server does not
implement is refused by name (METHOD_NOT_SUPPORTED_...). Alice pins the question with pin_message: Bob's raw update
handler sees UpdatePinnedMessages live for his own copy, which get_messages shows pinned; unpin_message undoes it. In
@lounge Bob may not pin (CHAT_ADMIN_REQUIRED); Alice, its owner, may. Unpinning all (unpin_message without an id) is
one update for Bob's copies. Talks only to 127.0.0.1; every step is bounded by
a timeout.
"""
import asyncio
import os
import sys

from telethon import TelegramClient, connection, events, functions, types
from telethon.crypto import rsa
from telethon.errors import RPCError
from telethon.sessions import SQLiteSession

STEP = 30


def make_client(path, port):
    session = SQLiteSession(path)
    if session.auth_key is None:
        session.set_dc(2, "127.0.0.1", port)
    return TelegramClient(session, 12345, "0123456789abcdef", connection=connection.ConnectionTcpIntermediate,
                          connection_retries=2, retry_delay=0, timeout=10)


async def refused(call, expected):
    try:
        await asyncio.wait_for(call, STEP)
    except RPCError as error:
        # Telethon raises its own class for the errors it knows (CHAT_ADMIN_REQUIRED → ChatAdminRequiredError, whose
        # message is generic) and keeps the text of the others.
        known = "".join(word.capitalize() for word in expected.split("_")) + "Error"
        assert expected in error.message or type(error).__name__ == known, f"expected {expected}, got {type(error).__name__}: {error}"
        return
    raise AssertionError(f"expected {expected}, the call succeeded")


async def alice_and_bob(name):
    """The command line's server and key; Alice (+15550001) and Bob (+15550002) logged in with sessions named `name`."""
    port, pem_path, session_dir = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    with open(pem_path) as f:
        rsa.add_key(f.read(), old=False)
    os.makedirs(session_dir, exist_ok=True)
    alice = make_client(os.path.join(session_dir, f"alice-{name}"), port)
    bob = make_client(os.path.join(session_dir, f"bob-{name}"), port)
    await asyncio.wait_for(alice.start(phone="+15550001", code_callback=lambda: "12345"), STEP)
    await asyncio.wait_for(bob.start(phone="+15550002", code_callback=lambda: "12345"), STEP)
    return alice, bob


async def main():
    alice, bob = await alice_and_bob("replies")

    to_alice, to_bob = asyncio.Queue(), asyncio.Queue()

    def queue_into(queue):
        async def handler(event):
            queue.put_nowait(event.message)
        return handler

    alice.add_event_handler(queue_into(to_alice), events.NewMessage(incoming=True))
    bob.add_event_handler(queue_into(to_bob), events.NewMessage(incoming=True))
    pins_at_bob = asyncio.Queue()

    async def on_raw(update):
        if isinstance(update, types.UpdatePinnedMessages):
            pins_at_bob.put_nowait(update)

    bob.add_event_handler(on_raw, events.Raw)
    await asyncio.wait_for(alice.catch_up(), STEP)
    await asyncio.wait_for(bob.catch_up(), STEP)

    # Alice's box moves ahead first, so her copy of the question has another id than Bob's.
    await asyncio.wait_for(alice.send_message("me", "a note to myself"), STEP)
    question = await asyncio.wait_for(alice.send_message("bob", "lunch at noon?"), STEP)
    asked = await asyncio.wait_for(to_bob.get(), STEP)
    assert asked.message == "lunch at noon?" and asked.id != question.id, (asked.id, question.id)
    await asyncio.wait_for(asked.reply("yes, see you there"), STEP)
    answer = await asyncio.wait_for(to_alice.get(), STEP)
    assert answer.message == "yes, see you there", answer
    assert answer.reply_to is not None and answer.reply_to.reply_to_msg_id == question.id, answer.reply_to
    replied = await asyncio.wait_for(answer.get_reply_message(), STEP)
    assert replied is not None and replied.message == "lunch at noon?", replied
    print(f"replies: Bob's reply to his message {asked.id} reached Alice live as a reply to her message {question.id}")

    post = await asyncio.wait_for(alice.send_message("lounge", "who is around?"), STEP)
    await asyncio.wait_for(bob.send_message("lounge", "me", reply_to=post.id), STEP)
    latest = [m async for m in alice.iter_messages("lounge", limit=1)]
    assert latest and latest[0].message == "me" and latest[0].reply_to.reply_to_msg_id == post.id, latest
    print(f"replies: a reply in @lounge names the channel's message {post.id}")

    await asyncio.wait_for(alice.pin_message("bob", question.id, notify=True), STEP)
    pinned = await asyncio.wait_for(pins_at_bob.get(), STEP)
    assert pinned.pinned and pinned.messages == [asked.id], pinned
    seen = await asyncio.wait_for(bob.get_messages("alice", ids=asked.id), STEP)
    assert seen.pinned, seen
    await asyncio.wait_for(alice.unpin_message("bob", question.id), STEP)
    unpinned = await asyncio.wait_for(pins_at_bob.get(), STEP)
    assert not unpinned.pinned and unpinned.messages == [asked.id], unpinned
    print(f"pins: Alice pinned and unpinned her message {question.id}; Bob saw both live for his copy {asked.id}")

    await refused(bob.pin_message("lounge", post.id), "CHAT_ADMIN_REQUIRED")
    await asyncio.wait_for(alice.pin_message("lounge", post.id), STEP)
    in_lounge = await asyncio.wait_for(bob.get_messages("lounge", ids=post.id), STEP)
    assert in_lounge.pinned, in_lounge
    print("pins: in @lounge only its owner pins")

    # unpin_message without an id is messages.UnpinAllMessages: Bob sees one update listing both of his copies.
    second = await asyncio.wait_for(alice.send_message("bob", "and the place"), STEP)
    second_at_bob = None
    while second_at_bob is None or second_at_bob.message != "and the place":   # past the pins' service messages
        second_at_bob = await asyncio.wait_for(to_bob.get(), STEP)
    for message in (question, second):
        await asyncio.wait_for(alice.pin_message("bob", message.id, notify=False), STEP)
        await asyncio.wait_for(pins_at_bob.get(), STEP)
    await asyncio.wait_for(alice.unpin_message("bob"), STEP)
    cleared = await asyncio.wait_for(pins_at_bob.get(), STEP)
    assert not cleared.pinned and sorted(cleared.messages) == sorted([asked.id, second_at_bob.id]), cleared
    print("pins: unpin all reached Bob as one update for both of his copies")

    await refused(bob.send_message("alice", "to nothing", reply_to=999_999), "REPLY_MESSAGE_ID_INVALID")
    await refused(bob(functions.account.GetPasswordRequest()), "METHOD_NOT_SUPPORTED_ACCOUNT_GETPASSWORD")
    print("replies: a reply to a missing message and a method the server lacks are refused by name")
    await alice.disconnect()
    await bob.disconnect()


if __name__ == "__main__":
    asyncio.run(main())
