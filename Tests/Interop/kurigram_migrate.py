#!/usr/bin/env python3
"""kurigram 2.2 follows PHONE_MIGRATE_1 against `synccore server --dcs 2 --seed dev --login-code 12345`.

Usage: kurigram_migrate.py DC2_PORT PUBLIC_KEY_PEM SESSION_DIR

Alice's home is DC 1; her client starts on DC 2, is told PHONE_MIGRATE_1, finds DC 1 among help.getConfig's
dc_options, makes a key there and logs in; then she messages Bob (whose home is DC 2) and reads it back. Talks only
to 127.0.0.1; every step is bounded by a timeout.
"""
import asyncio

from kurigram_common import STEP, no_errors, started


async def main():
    (alice,) = await started("alice")
    dc, port = await alice.storage.dc_id(), await alice.storage.port()
    assert dc == 1, f"Alice's session is on DC {dc}"
    sent = await asyncio.wait_for(alice.send_message("bob", "from DC 1"), STEP)
    history = [m.text async for m in alice.get_chat_history("bob", limit=1)]
    assert history == ["from DC 1"] and sent.text == "from DC 1", f"history: {history}"
    await alice.stop()
    no_errors()
    print(f"kurigram migrate: PHONE_MIGRATE_1 followed to DC 1 (port {port}), logged in and messaging")


asyncio.run(main())
