#!/usr/bin/env python3
"""Telethon 1.45 follows PHONE_MIGRATE_1 against `synccore server --dcs 2 --seed dev --login-code 12345`.

Usage: telethon_migrate.py DC2_PORT PUBLIC_KEY_PEM SESSION_DIR

Alice's home is DC 1; her client starts on DC 2, is told PHONE_MIGRATE_1, finds DC 1 in help.getConfig's dc_options,
logs in there and works (get_me, a message to Bob, whose home is DC 2, read back from history).
Talks only to 127.0.0.1; every step is bounded by a timeout.
"""
import asyncio
import os
import sys

from telethon import TelegramClient, connection
from telethon.crypto import rsa
from telethon.sessions import SQLiteSession

STEP = 30


async def main():
    port, pem_path, session_dir = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    with open(pem_path) as f:
        rsa.add_key(f.read(), old=False)
    os.makedirs(session_dir, exist_ok=True)
    session = SQLiteSession(os.path.join(session_dir, "alice-migrate"))
    session.set_dc(2, "127.0.0.1", port)
    alice = TelegramClient(session, 12345, "0123456789abcdef", connection=connection.ConnectionTcpFull,
                           connection_retries=2, retry_delay=0, timeout=10)
    await asyncio.wait_for(alice.start(phone="+15550001", code_callback=lambda: "12345"), STEP)
    me = await asyncio.wait_for(alice.get_me(), STEP)
    assert me.username == "alice", me
    assert alice.session.dc_id == 1, alice.session.dc_id
    assert alice.session.port != port, (alice.session.port, port)
    await asyncio.wait_for(alice.send_message("bob", "hello from DC 1"), STEP)
    history = [m.message async for m in alice.iter_messages("bob", limit=1)]
    assert history == ["hello from DC 1"], history
    print(f"migrate: PHONE_MIGRATE_1 followed (DC 2 port {port} -> DC 1 port {alice.session.port}), logged in and messaging")
    await alice.disconnect()


asyncio.run(main())
