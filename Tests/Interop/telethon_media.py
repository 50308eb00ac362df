#!/usr/bin/env python3
"""Telethon 1.45 files on `synccore server --seed dev --login-code 12345`, as a client or bot developer sends them.

Usage: telethon_media.py PORT PUBLIC_KEY_PEM SESSION_DIR

Alice sends Bob a photo (a PNG made here: the server decodes it and serves Telegram's JPEG sizes), a document, a 30 MiB
file (upload.saveBigFilePart) and an album of two photos (messages.uploadMedia + sendMultiMedia) with send_file, and
sets a profile photo (photos.uploadProfilePhoto), which Bob lists and downloads with download_profile_photo. Bob
receives each live (events.NewMessage) and downloads it with download_media: the photo as its largest size, 1280 px
wide, its stripped thumbnail rebuilt by Telethon; the files byte for byte. Talks only to 127.0.0.1; every step is
bounded by a timeout. telethon_balanced.py runs the same flows with Alice on one server process and Bob on another.
"""
import asyncio
import hashlib
import os
import sys
import tempfile
import time

from telethon import events, functions

from media_files import jpeg_size, png
from telethon_replies import STEP, make_client
from telethon.crypto import rsa

BIG = 30 * 1024 * 1024


async def main():
    port, pem_path, session_dir = int(sys.argv[1]), sys.argv[2], sys.argv[3]
    with open(pem_path) as f:
        rsa.add_key(f.read(), old=False)
    os.makedirs(session_dir, exist_ok=True)
    alice = make_client(os.path.join(session_dir, "alice-media"), port)
    bob = make_client(os.path.join(session_dir, "bob-media"), port)
    await asyncio.wait_for(alice.start(phone="+15550001", code_callback=lambda: "12345"), STEP)
    await asyncio.wait_for(bob.start(phone="+15550002", code_callback=lambda: "12345"), STEP)
    await media_flows(alice, bob)
    await alice.disconnect()
    await bob.disconnect()


async def media_flows(alice, bob):
    """Alice's files to Bob, each received live and downloaded (the module's docstring)."""
    to_bob = asyncio.Queue()

    async def on_message(event):
        to_bob.put_nowait(event.message)

    bob.add_event_handler(on_message, events.NewMessage(incoming=True))
    await asyncio.wait_for(bob.catch_up(), STEP)
    work = tempfile.mkdtemp()

    # A photo: Telegram's sizes made by the server from a PNG.
    photo_path = os.path.join(work, "gradient.png")
    with open(photo_path, "wb") as f:
        f.write(png(1600, 1000))
    sent = await asyncio.wait_for(alice.send_file("bob", photo_path, caption="a gradient"), STEP)
    assert sent.photo is not None, sent
    received = await asyncio.wait_for(to_bob.get(), STEP)
    assert received.photo is not None and received.photo.id == sent.photo.id and received.message == "a gradient", received
    types_listed = [size.type for size in received.photo.sizes]
    assert types_listed == ["i", "s", "m", "x", "y"], types_listed
    largest = await asyncio.wait_for(bob.download_media(received, file=bytes), STEP)
    assert jpeg_size(largest) == (1280, 800), jpeg_size(largest)
    stripped = await asyncio.wait_for(bob.download_media(received, file=bytes, thumb=0), STEP)
    assert stripped[:2] == b"\xff\xd8" and stripped[-2:] == b"\xff\xd9" and jpeg_size(stripped) == (40, 25), jpeg_size(stripped)
    print(f"media: a 1600x1000 PNG sent as a photo reached Bob live; he downloaded its largest size "
          f"({len(largest)} bytes, 1280x800) and its stripped thumbnail")

    # A document, byte for byte.
    notes = os.urandom(2_500_000)
    notes_path = os.path.join(work, "notes.bin")
    with open(notes_path, "wb") as f:
        f.write(notes)
    await asyncio.wait_for(alice.send_file("bob", notes_path, force_document=True, caption="notes"), STEP)
    received = await asyncio.wait_for(to_bob.get(), STEP)
    assert received.document is not None and received.file.name == "notes.bin" and received.file.size == len(notes), received
    downloaded = await asyncio.wait_for(bob.download_media(received, file=bytes), STEP)
    assert downloaded == notes
    print("media: a 2.5 MB document reached Bob live and downloaded byte for byte")

    # A 30 MiB file: upload.saveBigFilePart up, upload.getFile down.
    big = os.urandom(BIG)
    big_path = os.path.join(work, "big.bin")
    with open(big_path, "wb") as f:
        f.write(big)
    started = time.monotonic()
    await asyncio.wait_for(alice.send_file("bob", big_path, force_document=True), 240)
    uploaded = time.monotonic() - started
    received = await asyncio.wait_for(to_bob.get(), STEP)
    assert received.file.size == BIG, received.file.size
    started = time.monotonic()
    downloaded = await asyncio.wait_for(bob.download_media(received, file=bytes), 240)
    assert hashlib.sha256(downloaded).digest() == hashlib.sha256(big).digest()
    print(f"media: a 30 MiB file went up in {uploaded:.1f} s and down in {time.monotonic() - started:.1f} s, byte for byte")

    # An album: two photos uploaded with messages.uploadMedia and sent with messages.sendMultiMedia.
    paths = []
    for tint in (40, 220):
        path = os.path.join(work, f"album-{tint}.png")
        with open(path, "wb") as f:
            f.write(png(320, 240, tint))
        paths.append(path)
    await asyncio.wait_for(alice.send_file("bob", paths, caption=["first", "second"]), STEP)
    album = [await asyncio.wait_for(to_bob.get(), STEP) for _ in paths]
    assert all(m.photo is not None for m in album), album
    assert album[0].grouped_id is not None and album[0].grouped_id == album[1].grouped_id, [m.grouped_id for m in album]
    assert sorted(m.message for m in album) == ["first", "second"], [m.message for m in album]
    print("media: an album of two photos arrived as two messages of one grouped_id")

    # A profile photo (photos.uploadProfilePhoto), downloaded by Bob by peer (inputPeerPhotoFileLocation), big and small.
    avatar_path = os.path.join(work, "avatar.png")
    with open(avatar_path, "wb") as f:
        f.write(png(600, 600, 10))
    uploaded = await asyncio.wait_for(alice(functions.photos.UploadProfilePhotoRequest(file=await alice.upload_file(avatar_path))), STEP)
    seen = await asyncio.wait_for(bob.get_entity("alice"), STEP)
    assert seen.photo is not None and seen.photo.photo_id == uploaded.photo.id, seen.photo
    big_avatar = await asyncio.wait_for(bob.download_profile_photo(seen, file=bytes), STEP)
    small_avatar = await asyncio.wait_for(bob.download_profile_photo(seen, file=bytes, download_big=False), STEP)
    assert jpeg_size(big_avatar) == (600, 600) and jpeg_size(small_avatar) == (320, 320), (jpeg_size(big_avatar), jpeg_size(small_avatar))
    listed = await asyncio.wait_for(bob.get_profile_photos("alice"), STEP)
    assert [p.id for p in listed][:1] == [uploaded.photo.id], listed
    print("media: Alice's profile photo was uploaded, listed, and downloaded by Bob big (600x600) and small (320x320)")





if __name__ == "__main__":
    asyncio.run(main())
