#!/usr/bin/env python3
"""Telethon 1.45 search on `synccore server --seed dev --login-code 12345`, as a user or bot developer searches a chat.

Usage: telethon_search.py PORT PUBLIC_KEY_PEM SESSION_DIR

Alice writes to Bob; Bob finds her messages with iter_messages(search=...) in any case, newest first, paged by
Telethon (limit below the matches), by sender (from_user) and pinned only (InputMessagesFilterPinned); in @lounge a
post is found too. Talks only to 127.0.0.1; every step is bounded by a timeout.
"""
import asyncio
import uuid

from telethon import types

from telethon_replies import STEP, alice_and_bob


async def main():
    alice, bob = await alice_and_bob("search")
    word = "kumquat" + uuid.uuid4().hex[:6]   # this run's messages only, on a server earlier scripts wrote to

    sent = []
    for text in [f"{word} one", "unrelated", f"two {word.upper()}", f"three {word}"]:
        sent.append(await asyncio.wait_for(alice.send_message("bob", text), STEP))
    await asyncio.wait_for(bob.send_message("alice", f"from Bob: {word}"), STEP)
    await asyncio.wait_for(alice.pin_message("bob", sent[0].id, notify=False), STEP)

    async def found(entity, **kwargs):
        return [m.message async for m in bob.iter_messages(entity, **kwargs)]

    everything = await asyncio.wait_for(found("alice", search=word), STEP)
    assert everything == [f"from Bob: {word}", f"three {word}", f"two {word.upper()}", f"{word} one"], everything
    paged = await asyncio.wait_for(found("alice", search=word, limit=3, wait_time=0), STEP)
    assert paged == everything[:3], paged
    from_alice = await asyncio.wait_for(found("alice", search=word, from_user="alice"), STEP)
    assert from_alice == everything[1:], from_alice
    pinned = await asyncio.wait_for(found("alice", filter=types.InputMessagesFilterPinned()), STEP)
    assert pinned and pinned[0] == f"{word} one", pinned
    print(f"search: Bob found Alice's {len(everything) - 1} messages in any case, paged, by sender and pinned")

    await asyncio.wait_for(alice.send_message("lounge", f"lounge {word}"), STEP)
    in_lounge = await asyncio.wait_for(found("lounge", search=word.upper()), STEP)
    assert in_lounge == [f"lounge {word}"], in_lounge
    print("search: a post in @lounge is found")
    await alice.disconnect()
    await bob.disconnect()


asyncio.run(main())
