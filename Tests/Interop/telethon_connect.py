#!/usr/bin/env python3
"""Telethon 1.45 against `synccore server`: key exchange and help.getConfig over every TCP transport.

Usage: telethon_connect.py PORT PUBLIC_KEY_PEM SESSION_DIR (connect|reconnect)

`connect` creates a new Telethon session per transport (so each runs the key exchange); `reconnect` reuses those
sessions (each must work with its stored auth key, without a new exchange). Prints one line per transport and
exits non-zero on the first failure. Talks only to 127.0.0.1; every step is bounded by a timeout.
"""
import asyncio
import os
import sys

from telethon import TelegramClient, connection, functions
from telethon.crypto import rsa
from telethon.sessions import SQLiteSession

TRANSPORTS = {
    "full": connection.ConnectionTcpFull,
    "abridged": connection.ConnectionTcpAbridged,
    "intermediate": connection.ConnectionTcpIntermediate,
    "obfuscated": connection.ConnectionTcpObfuscated,
}


async def run(name, transport, port, session_path, mode):
    session = SQLiteSession(session_path)
    if mode == "connect":
        session.set_dc(2, "127.0.0.1", port)
        session.auth_key = None
    had_key = session.auth_key is not None
    client = TelegramClient(session, 12345, "0123456789abcdef", connection=transport,
                            connection_retries=1, retry_delay=0, timeout=10, receive_updates=False)
    try:
        await asyncio.wait_for(client.connect(), 30)
        config = await asyncio.wait_for(client(functions.help.GetConfigRequest()), 30)
        assert config.this_dc == 2, config.this_dc
        assert any(o.port == port for o in config.dc_options), config.dc_options
        print(f"{name}: {mode} ok (stored key reused: {had_key}, auth_key_id {client.session.auth_key.key_id & 0xffffffffffffffff:x})")
    finally:
        await client.disconnect()
        session.close()


async def main():
    port, pem_path, session_dir, mode = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4]
    with open(pem_path) as f:
        rsa.add_key(f.read(), old=False)
    os.makedirs(session_dir, exist_ok=True)
    for name, transport in TRANSPORTS.items():
        await run(name, transport, port, os.path.join(session_dir, name), mode)


asyncio.run(main())
