"""docs/DEPLOYING.md's walk-through, its clients (Telethon 1.45): two new users sign up through the balancer on mtproto.example:443 (their
codes read from the servers' logs: without SMS, an operator reads them there), Ann adds Ben as a contact and messages
him, Ben answers; then both reconnect (to whichever process the balancer picks) and message again."""
import asyncio, glob, re, sys, time
from telethon import TelegramClient, errors, events, functions, types
from telethon.crypto import rsa
from telethon.sessions import MemorySession

PEM, LOGS = sys.argv[1], sys.argv[2]   # the exported key; the servers' logs (glob patterns, space-separated)
ANN, BEN = "+49301234567", "+49301234568"


def code_for(phone):
    """The newest code logged for `phone` by any process (log lines start with an ISO 8601 time)."""
    for _ in range(100):
        codes = []
        for path in [p for pattern in LOGS.split() for p in glob.glob(pattern)]:
            codes += re.findall(rf"^(\S+) .*code=(\d+) phone={phone.lstrip('+')}\b", open(path).read(), re.MULTILINE)
        if codes:
            return max(codes)[1]
        time.sleep(0.1)
    raise SystemExit(f"no code logged for {phone}")


def client(session):
    session.set_dc(2, "mtproto.example", 443)
    return TelegramClient(session, 1, "walkthrough", timeout=10, connection_retries=3)


async def expect(queue, text):
    got = await asyncio.wait_for(queue.get(), 15)
    assert got == text, (got, text)
    print("received:", got)


async def main():
    rsa.add_key(open(PEM).read(), old=False)
    sessions = {ANN: MemorySession(), BEN: MemorySession()}
    ann, ben = client(sessions[ANN]), client(sessions[BEN])
    await sign_up(ann, ANN, "Ann")
    await sign_up(ben, BEN, "Ben")
    to_ann, to_ben = asyncio.Queue(), asyncio.Queue()
    async def into(queue, event):
        queue.put_nowait(event.message.message)
    ann.add_event_handler(lambda e: into(to_ann, e), events.NewMessage(incoming=True))
    ben.add_event_handler(lambda e: into(to_ben, e), events.NewMessage(incoming=True))
    await ann.catch_up(); await ben.catch_up()
    imported = await ann(functions.contacts.ImportContactsRequest([types.InputPhoneContact(0, BEN, "Ben", "")]))
    ben_user = imported.users[0]
    await ann.send_message(ben_user, "hello Ben, through the balancer")
    await expect(to_ben, "hello Ben, through the balancer")
    await ben.send_message((await ben.get_dialogs())[0].entity, "hello Ann")
    await expect(to_ann, "hello Ann")
    for side in (ann, ben):
        await side.disconnect()
        await side.connect()
        await side.catch_up()
    await ann.send_message(ben_user, "again, after both reconnected")
    await expect(to_ben, "again, after both reconnected")
    print("ok")
    await ann.disconnect(); await ben.disconnect()


async def sign_up(side, phone, name):
    """auth.sendCode, auth.signIn (the phone is new: PHONE_NUMBER_UNOCCUPIED), auth.signUp (Telethon 1.45 no longer
    wraps it)."""
    await side.connect()
    sent = await side.send_code_request(phone)
    code = code_for(phone)
    try:
        await side.sign_in(phone, code)
    except errors.PhoneNumberUnoccupiedError:
        done = await side(functions.auth.SignUpRequest(phone, sent.phone_code_hash, name, ""))
        await side._on_login(done.user)
    print("logged in:", name)


asyncio.run(main())
