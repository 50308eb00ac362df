#!/usr/bin/env python3
"""kurigram 2.2 (a Pyrogram fork) files on `synccore server --seed dev --login-code 12345`, through its high-level API.

Usage: kurigram_media.py PORT PUBLIC_KEY_PEM SESSION_DIR [BOB_PORT]

Alice sends Bob a photo (send_photo of a PNG made here: the server serves Telegram's JPEG sizes) and a document
(send_document of 3 MB, in parallel parts as kurigram uploads them). Bob's message handler receives each; download_media
brings the photo's largest size (1280 px wide) and the document byte for byte. With BOB_PORT, Bob talks to another
server process of the data center (PostgreSQL): he downloads what was uploaded to the first. Fails on any error a
client logs.
Talks only to 127.0.0.1; every step is bounded by a timeout.
"""
import asyncio
import os
import sys
import tempfile

from pyrogram.handlers import MessageHandler

from kurigram_common import STEP, client, eventually, no_errors, started
from media_files import jpeg_size, png


async def main():
    if len(sys.argv) > 4:
        (alice,) = await started("alice")
        bob = client("bob", sys.argv[3], int(sys.argv[4]))
        await asyncio.wait_for(bob.start(), STEP)
    else:
        alice, bob = await started("alice", "bob")
    received = []
    bob.add_handler(MessageHandler(lambda c, m: received.append(m)))
    work = tempfile.mkdtemp()

    photo_path = os.path.join(work, "gradient.png")
    with open(photo_path, "wb") as f:
        f.write(png(1500, 900))
    sent = await asyncio.wait_for(alice.send_photo("bob", photo_path, caption="from kurigram"), STEP)
    assert sent.photo is not None, sent
    await eventually(lambda: any(m.photo for m in received), "Bob's photo")
    photo = next(m for m in received if m.photo)
    assert photo.caption == "from kurigram" and photo.photo.width == 1280 and photo.photo.height == 768, photo.photo
    largest = await asyncio.wait_for(bob.download_media(photo, in_memory=True), STEP)
    assert jpeg_size(bytes(largest.getbuffer())) == (1280, 768)
    print("kurigram media: a PNG sent with send_photo reached Bob; download_media brought its 1280x768 size")

    data = os.urandom(3_000_000)
    document_path = os.path.join(work, "data.bin")
    with open(document_path, "wb") as f:
        f.write(data)
    await asyncio.wait_for(alice.send_document("bob", document_path, caption="the data"), STEP * 2)
    await eventually(lambda: any(m.document for m in received), "Bob's document")
    document = next(m for m in received if m.document)
    assert document.document.file_name == "data.bin" and document.document.file_size == len(data), document.document
    downloaded = await asyncio.wait_for(bob.download_media(document, in_memory=True), STEP * 2)
    assert bytes(downloaded.getbuffer()) == data
    print("kurigram media: a 3 MB document sent with send_document reached Bob and downloaded byte for byte")

    for c in (alice, bob):
        await c.stop()
    no_errors()


if __name__ == "__main__":
    asyncio.run(main())
