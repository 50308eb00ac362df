#!/usr/bin/env python3
"""Telethon 1.45 through HAProxy to one data center served by two `synccore server` processes on one PostgreSQL
database, each process with a data directory of its own (nothing but the database shared).

Usage: telethon_balanced.py SYNCCORE POSTGRES_URL WORK_DIR

Starts the two processes (the second only after the first made the RSA key in the database), and HAProxy in front of
them on a free port, the address the processes advertise (`--advertise`); HAProxy sends each connection's client
address in a PROXY protocol version 2 header (`send-proxy-v2`, the processes run with `--proxy-protocol`). Alice and Bob log in through the balancer,
Bob joins @news. Then, at every step, the balancer is switched to the other process (HAProxy's runtime API: one
server ready, the other in maintenance) and both clients reconnect through it from their session files, with their
auth keys; each step checks from HAProxy's counters that the new connections reached that process. In each step
Alice and Bob message each other and Alice posts in @news, each message seen live by the other side; on every other
step Bob is offline while Alice writes and catches up on the next step, from the other process (getDifference and
getChannelDifference). At one step the process both clients are connected to is killed with SIGKILL (the balancer
already pointing at the other) while Alice sends: the clients reconnect on their own, nothing is lost, and the
killed process is started again and serves the next step. At the end every message was received exactly once, and
the histories hold each exactly once. Then files (telethon_media.py's flows): Alice, connected to the first process,
sends a photo, a document, a 30 MiB file and an album; Bob, connected to the second, receives and downloads each.

When the process dies, Telethon logs "Server replied with a wrong session ID" once: an acknowledgement it had encrypted
for its old session leaves on the new connection, and the server answers that session's first message
(`new_session_created`) in it, as MTProto asks, before the new session's; Telethon drops that answer.

Talks only to 127.0.0.1; every wait is bounded. Prints one line per step, exits non-zero on failure.
"""
import asyncio
import os
import signal
import socket
import subprocess
import sys
import time

from telethon import TelegramClient, connection, events, functions
from telethon.crypto import rsa
from telethon.sessions import SQLiteSession

from telethon_media import media_flows

STEP = 30
STEPS = 8
KILL_AT = 4


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """One `synccore server` process of the data center, on its own port and data directory."""

    def __init__(self, name, synccore, database, work, lb_port, extra=()):
        self.name, self.port = name, free_port()
        self.data = os.path.join(work, f"data-{name}")
        self.log = os.path.join(work, f"server-{name}.log")
        self.command = [synccore, "server", "--postgres", database, "--data", self.data, "--port", str(self.port),
                        "--seed", "dev", "--login-code", "12345", "--advertise", f"127.0.0.1:{lb_port}",
                        "--proxy-protocol", "--log-level", "warning", *extra]
        self.process = None

    def start(self):
        out = open(self.log + ".out", "w")
        self.process = subprocess.Popen(self.command, stdout=out, stderr=open(self.log, "a"))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with open(self.log + ".out") as f:
                if "listening on" in f.read():
                    return
            if self.process.poll() is not None:
                break
            time.sleep(0.1)
        with open(self.log) as f:
            raise SystemExit(f"server {self.name} did not start:\n{f.read()}")

    def kill(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait(10)

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(20)
            except subprocess.TimeoutExpired:
                self.process.kill()


class Balancer:
    """HAProxy in TCP mode in front of the servers, driven through its runtime API (a Unix socket)."""

    def __init__(self, work, port, servers):
        self.socket = os.path.join(work, "haproxy.sock")
        config = os.path.join(work, "haproxy.cfg")
        lines = [
            "global", f"    stats socket {self.socket} mode 600 level admin", "    maxconn 1000",
            "defaults", "    mode tcp", "    timeout connect 2s", "    timeout client 5m", "    timeout server 5m",
            "    retries 3", "    option redispatch",
            "frontend mtproto", f"    bind 127.0.0.1:{port}", "    default_backend synccore",
            "backend synccore", "    balance roundrobin",
        ] + [f"    server {s.name} 127.0.0.1:{s.port} send-proxy-v2 check check-send-proxy inter 300ms fall 1 rise 1" for s in servers]
        with open(config, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.process = subprocess.Popen(["haproxy", "-db", "-f", config], stdout=subprocess.DEVNULL,
                                        stderr=open(os.path.join(work, "haproxy.log"), "w"))
        deadline = time.monotonic() + 10
        while not os.path.exists(self.socket):
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise SystemExit("haproxy did not start")
            time.sleep(0.05)

    def command(self, text):
        with socket.socket(socket.AF_UNIX) as s:
            s.settimeout(5)
            s.connect(self.socket)
            s.sendall(text.encode() + b"\n")
            chunks = []
            while chunk := s.recv(65536):
                chunks.append(chunk)
        return b"".join(chunks).decode()

    def route_to(self, name, names):
        for other in names:
            self.command(f"set server synccore/{other} state {'ready' if other == name else 'maint'}")

    def sessions(self):
        """Connections each server was given so far (`stot` of `show stat`)."""
        rows = self.command("show stat").splitlines()
        header = rows[0].lstrip("# ").split(",")
        counts = {}
        for row in rows[1:]:
            cells = row.split(",")
            if len(cells) == len(header) and cells[0] == "synccore" and cells[1] not in ("BACKEND", "FRONTEND"):
                counts[cells[1]] = int(cells[header.index("stot")])
        return counts

    def stop(self):
        self.process.terminate()
        self.process.wait(10)


class Side:
    """One user's Telethon client, made again from its session file at each reconnection, with what it received."""

    def __init__(self, name, phone, session_dir, lb_port):
        self.name, self.phone, self.lb_port = name, phone, lb_port
        self.path = os.path.join(session_dir, name)
        self.received = {}   # text -> times received
        self.arrived = asyncio.Queue()
        self.client = None

    def make(self):
        session = SQLiteSession(self.path)
        if session.auth_key is None:
            session.set_dc(2, "127.0.0.1", self.lb_port)
        client = TelegramClient(session, 12345, "0123456789abcdef", connection=connection.ConnectionTcpIntermediate,
                                connection_retries=10, retry_delay=0.3, timeout=10, catch_up=True, auto_reconnect=True)

        async def on_message(event):
            text = event.message.message
            self.received[text] = self.received.get(text, 0) + 1
            self.arrived.put_nowait(text)

        client.add_event_handler(on_message, events.NewMessage(incoming=True))
        return client

    async def connect(self, login=False):
        self.client = self.make()
        if login:
            await asyncio.wait_for(self.client.start(phone=self.phone, code_callback=lambda: "12345"), STEP)
        else:
            await asyncio.wait_for(self.client.connect(), STEP)
            assert await asyncio.wait_for(self.client.is_user_authorized(), STEP), f"{self.name} lost its login"
        await asyncio.wait_for(self.client.catch_up(), STEP)

    async def disconnect(self):
        if self.client is not None:
            await self.client.disconnect()
            self.client = None

    async def expect(self, texts):
        """Waits until every text of `texts` arrived."""
        missing = set(texts)
        deadline = time.monotonic() + STEP
        while missing:
            missing -= {t for t in self.received}
            if not missing:
                break
            remaining = deadline - time.monotonic()
            assert remaining > 0, f"{self.name} did not receive {sorted(missing)}"
            try:
                await asyncio.wait_for(self.arrived.get(), remaining)
            except asyncio.TimeoutError:
                pass


async def main():
    synccore, database, work = sys.argv[1], sys.argv[2], sys.argv[3]
    lb_port = free_port()
    servers = [Server("a", synccore, database, work, lb_port, ["--export-public-key", os.path.join(work, "public.pem")]),
               Server("b", synccore, database, work, lb_port)]
    names = [s.name for s in servers]
    balancer = None
    try:
        for server in servers:
            server.start()
        assert not os.path.exists(os.path.join(servers[1].data, "rsa-key.txt")), "the second process made a key file"
        balancer = Balancer(work, lb_port, servers)
        with open(os.path.join(work, "public.pem")) as f:
            rsa.add_key(f.read(), old=False)
        session_dir = os.path.join(work, "sessions")
        os.makedirs(session_dir, exist_ok=True)
        alice = Side("alice", "+15550001", session_dir, lb_port)
        bob = Side("bob", "+15550002", session_dir, lb_port)
        balancer.route_to("a", names)
        await alice.connect(login=True)
        await bob.connect(login=True)
        await asyncio.wait_for(bob.client(functions.channels.JoinChannelRequest("news")), STEP)
        print(f"balanced: alice and bob logged in through haproxy on {lb_port} (process a); bob joined @news")

        sent_to_bob, sent_to_alice = [], []
        bob_offline = False
        for step in range(1, STEPS + 1):
            target = names[step % 2]
            balancer.route_to(target, names)
            before = balancer.sessions()
            await alice.disconnect()
            await alice.connect()
            if not bob_offline:
                await bob.disconnect()
            await bob.connect()   # an offline Bob catches up here, from the other process
            after = balancer.sessions()
            assert after[target] >= before[target] + 2 and after[names[(step + 1) % 2]] == before[names[(step + 1) % 2]], (before, after)
            if bob_offline:
                await bob.expect(sent_to_bob[-2:])
                bob_offline = False

            texts = [f"step {step}: alice to bob", f"step {step}: news"]
            await asyncio.wait_for(alice.client.send_message("bob", texts[0]), STEP)
            await asyncio.wait_for(alice.client.send_message("news", texts[1]), STEP)
            sent_to_bob += texts
            await bob.expect(texts)
            reply = f"step {step}: bob to alice"
            await asyncio.wait_for(bob.client.send_message("alice", reply), STEP)
            sent_to_alice.append(reply)
            await alice.expect([reply])
            note = "live"

            if step == KILL_AT:
                # The balancer points at the other process, then the one both clients use dies: they reconnect on
                # their own (Telethon's auto-reconnect), through the balancer, to the other process.
                victim = next(s for s in servers if s.name == target)
                balancer.route_to(names[(step + 1) % 2], names)
                victim.kill()
                texts = [f"step {step}: after the kill, alice to bob", f"step {step}: after the kill, news"]
                await asyncio.wait_for(alice.client.send_message("bob", texts[0]), STEP)
                await asyncio.wait_for(alice.client.send_message("news", texts[1]), STEP)
                sent_to_bob += texts
                await bob.expect(texts)
                victim.start()
                note += f"; process {target} killed while in use, clients moved on their own, process restarted"
            elif step % 2 == 1 and step < STEPS:
                await bob.disconnect()
                texts = [f"step {step}: alice to offline bob", f"step {step}: news while bob is away"]
                await asyncio.wait_for(alice.client.send_message("bob", texts[0]), STEP)
                await asyncio.wait_for(alice.client.send_message("news", texts[1]), STEP)
                sent_to_bob += texts
                bob_offline = True
                note += "; bob went offline, alice wrote"
            print(f"balanced: step {step} on process {target}: {note}")

        await asyncio.sleep(1)   # anything delivered twice would have arrived by now
        for side, sent in ((bob, sent_to_bob), (alice, sent_to_alice)):
            assert set(side.received) == set(sent), (side.name, sorted(set(sent) - set(side.received)), sorted(set(side.received) - set(sent)))
            twice = {t: n for t, n in side.received.items() if n != 1}
            assert not twice, f"{side.name} received these more than once: {twice}"
        history = [m.message async for m in bob.client.iter_messages("alice", limit=None, wait_time=0)]
        for text in [t for t in sent_to_bob if "news" not in t] + sent_to_alice:
            assert history.count(text) == 1, (text, history.count(text))
        posts = [m.message async for m in bob.client.iter_messages("news", limit=None, wait_time=0)]
        for text in (t for t in sent_to_bob if "news" in t):
            assert posts.count(text) == 1, (text, posts.count(text))
        counts = balancer.sessions()
        print(f"balanced: {len(sent_to_bob)} messages and posts to bob, {len(sent_to_alice)} to alice, each received once; "
              f"histories whole; connections per process {counts}")
        await alice.disconnect()
        await bob.disconnect()

        # Files across the processes: Alice uploads through process a, Bob receives and downloads through process b.
        balancer.route_to("a", names)
        await alice.connect()
        balancer.route_to("b", names)
        await bob.connect()
        await asyncio.wait_for(media_flows(alice.client, bob.client), 600)
        print("balanced: files uploaded through process a were received and downloaded through process b")
        await alice.disconnect()
        await bob.disconnect()
    finally:
        if balancer:
            balancer.stop()
        for server in servers:
            server.stop()


asyncio.run(main())
