#!/usr/bin/env python3
"""Shared set-up of the kurigram 2.2 (a Pyrogram fork) interop scripts against `synccore server --seed dev
--login-code 12345` on 127.0.0.1, through kurigram's public API only:

- the server's RSA key is added to kurigram's table of server keys (`pyrogram.crypto.rsa.server_public_keys`), as
  Telethon's `rsa.add_key` does;
- the data center's address comes from a storage engine (`Client(storage_engine=...)`), kurigram's documented way to
  keep a session elsewhere: a SQLite session whose address and port stay the server's where kurigram would write
  Telegram's on a first login;
- every ERROR a client logs (a handler that raised, an update it could not read) is counted: a flow fails on any.
"""
import asyncio
import logging
import os
from pathlib import Path
import sys

from pyrogram import Client
from pyrogram.crypto import rsa
from pyrogram.storage import SQLiteStorage
from pyrogram.storage.sqlite_storage import PROD, TEST

STEP = 30
PHONES = {"alice": "+15550001", "bob": "+15550002", "carol": "+15550003"}


class Errors(logging.Handler):
    """Every ERROR (or worse) a client logs."""

    def __init__(self):
        super().__init__(level=logging.ERROR)
        self.records = []

    def emit(self, record):
        self.records.append(self.format(record))


ERRORS = Errors()
logging.basicConfig(level=logging.WARNING)
logging.getLogger().addHandler(ERRORS)


class LocalServerStorage(SQLiteStorage):
    """A file session whose data center is this machine's server: where kurigram writes one of Telegram's own
    addresses (a first login starts on DC 2 at Telegram's), this server's address and port are written instead;
    addresses the server itself gave (`help.getConfig`'s, on a PHONE_MIGRATE) are kept as given."""

    TELEGRAM = set(PROD.values()) | set(TEST.values()) | {"2001:67c:4e8:f002::a", "2001:67c:4e8:f002::e"}

    def __init__(self, name, workdir, address, port):
        super().__init__(name=name, workdir=Path(workdir))
        self.local = (address, port)
        self.replacing = False

    async def server_address(self, value=None):
        if value is None:
            return await super().server_address()
        self.replacing = value in self.TELEGRAM
        return await super().server_address(self.local[0] if self.replacing else value)

    async def port(self, value=None):
        if value is None:
            return await super().port()
        return await super().port(self.local[1] if self.replacing else value)


def trust(pem_path):
    """Adds the server's PKCS#1 public key to kurigram's key table, by Telegram's fingerprint (the low 64 bits of
    SHA-1 over the TL bytes of n and e)."""
    import base64
    import hashlib

    with open(pem_path) as f:
        der = base64.b64decode("".join(line for line in f.read().splitlines() if not line.startswith("-----")))

    def read(data, offset):   # one DER element: (tag, contents, next offset)
        tag, length = data[offset], data[offset + 1]
        offset += 2
        if length & 0x80:
            count = length & 0x7F
            length = int.from_bytes(data[offset:offset + count], "big")
            offset += count
        return tag, data[offset:offset + length], offset + length

    _, sequence, _ = read(der, 0)   # RSAPublicKey ::= SEQUENCE { modulus INTEGER, publicExponent INTEGER }
    _, modulus, after = read(sequence, 0)
    _, exponent, _ = read(sequence, after)
    n, e = int.from_bytes(modulus, "big"), int.from_bytes(exponent, "big")

    def tl_bytes(value):
        data = value.to_bytes((value.bit_length() + 7) // 8, "big")
        header = bytes([len(data)]) if len(data) < 254 else bytes([254]) + len(data).to_bytes(3, "little")
        body = header + data
        return body + b"\x00" * (-len(body) % 4)

    digest = hashlib.sha1(tl_bytes(n) + tl_bytes(e)).digest()
    fingerprint = int.from_bytes(digest[-8:], "little", signed=True)
    rsa.server_public_keys[fingerprint] = rsa.PublicKey(n, e)


def client(name, session_dir, port, suffix=""):
    """A logged-out or stored session of one of the seeded users (`PHONES`)."""
    os.makedirs(session_dir, exist_ok=True)
    storage = LocalServerStorage(f"{name}{suffix}", session_dir, "127.0.0.1", port)
    return Client(f"{name}{suffix}", api_id=12345, api_hash="0123456789abcdef", phone_number=PHONES[name], phone_code="12345",
                  storage_engine=storage, workdir=session_dir, skip_updates=False, fetch_replies=True, fetch_stories=False,
                  fetch_stickers=False, fetch_topics=False, sleep_threshold=0)


async def started(*names, suffix=""):
    """The command line's server and key: the named users logged in (each a started client)."""
    port, pem_path, session_dir = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    trust(pem_path)
    clients = []
    for name in names:
        c = client(name, session_dir, port, suffix)
        await asyncio.wait_for(c.start(), STEP)
        clients.append(c)
    return clients


async def eventually(condition, what, seconds=STEP):
    """Waits until `condition()` holds."""
    for _ in range(int(seconds * 10)):
        if condition():
            return
        await asyncio.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


def no_errors():
    assert not ERRORS.records, "the clients logged errors:\n" + "\n".join(ERRORS.records)
