#!/usr/bin/env bash
# Follows docs/DEPLOYING.md on a fresh machine: a Debian 12 made by debootstrap (minbase) in DIR, where
# deploying_steps.sh runs the page's commands (PostgreSQL with the page's TLS certificate, two processes as the
# synccore user, HAProxy with PROXY headers). Then "another machine": a network namespace whose process reaches the
# database over a veth with verify-full TLS and listens on its private address, added to HAProxy. Telethon clients
# sign up and message through HAProxy on :443, first through the two local processes, then through the other
# machine's alone. A manual check (root, network for Debian's packages, ports 443 and 5432 free; about 10 minutes
# with the build), not part of CI.
# Usage: sudo [SYNCCORE_BINARY=FILE] bash Tests/Deploying/run_deploying_walkthrough.sh DIR   (DIR must not exist)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=${1:?a directory for the fresh machine}
[ ! -e "$root" ] || { echo "$root exists" >&2; exit 1; }
python=Tests/Interop/.venv/bin/python
binary=${SYNCCORE_BINARY:-}   # a binary built as the page says, or built here
if [ -z "$binary" ]; then
    swift build -c release --product synccore --static-swift-stdlib
    binary="$(swift build -c release --static-swift-stdlib --show-bin-path)/synccore"
fi
debootstrap --variant=minbase bookworm "$root" http://deb.debian.org/debian
cleanup() {
    pkill -f /usr/local/bin/synccore || true
    chroot "$root" sh -c 'kill $(cat /run/haproxy.pid) 2>/dev/null; pg_ctlcluster 15 main stop' || true
    ip netns del synccore-m2 2>/dev/null || true
    sed -i '/db.example mtproto.example/d' /etc/hosts
    umount -l "$root/dev/pts" "$root/dev" "$root/proc" 2>/dev/null || true
}
trap cleanup EXIT
mount -t proc proc "$root/proc"; mount --bind /dev "$root/dev"; mount --bind /dev/pts "$root/dev/pts"
cp /etc/resolv.conf "$root/etc/resolv.conf"
printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"; chmod +x "$root/usr/sbin/policy-rc.d"   # no services start in a chroot
cp "$binary" "$root/root/synccore"
cp Tests/Deploying/deploying_steps.sh "$root/root/"
chroot "$root" /bin/sh /root/deploying_steps.sh

echo "127.0.0.1 db.example mtproto.example" >> /etc/hosts   # the clients, on this machine, resolve the page's names
"$python" Tests/Deploying/deploying_clients.py "$root/var/lib/synccore/public-key.pem" "$root/root/synccore-*.log"

# Another machine: the page's settings for servers elsewhere (listen_addresses, pg_hba's hostssl line).
ip netns add synccore-m2
ip link add synccore-h type veth peer name synccore-m
ip link set synccore-m netns synccore-m2
ip addr add 10.0.0.1/24 dev synccore-h; ip link set synccore-h up
ip netns exec synccore-m2 ip addr add 10.0.0.2/24 dev synccore-m
ip netns exec synccore-m2 ip link set synccore-m up; ip netns exec synccore-m2 ip link set lo up
chroot "$root" sh -c "sed -i \"s|^#listen_addresses.*|listen_addresses = '*'|\" /etc/postgresql/15/main/postgresql.conf \
    && echo 'hostssl synccore_dc2 synccore 10.0.0.0/24 scram-sha-256' >> /etc/postgresql/15/main/pg_hba.conf \
    && pg_ctlcluster 15 main restart"
printf '127.0.0.1 localhost\n10.0.0.1 db.example\n' > "$root/root/m2-hosts"
ip netns exec synccore-m2 unshare -m sh -c "mount --bind $root/root/m2-hosts $root/etc/hosts && chroot $root su -s /bin/sh synccore -c \
    \"/usr/local/bin/synccore server --host 10.0.0.2 --port 4433 --dc 2 --data /var/lib/synccore/dc2-4433 \
    --postgres 'postgres://synccore@db.example:5432/synccore_dc2?sslmode=verify-full&sslrootcert=/etc/ssl/db-root.pem' \
    --advertise mtproto.example:443 --proxy-protocol --metrics-port 14433 --event-loops 2\" > $root/root/synccore-4433.log 2>&1 &"
sleep 5
echo "    server c 10.0.0.2:4433 send-proxy-v2 check check-send-proxy" >> "$root/etc/haproxy/haproxy.cfg"
chroot "$root" sh -c 'haproxy -D -f /etc/haproxy/haproxy.cfg -p /run/haproxy.pid -sf $(cat /run/haproxy.pid)'
sleep 3
"$python" - "$root/run/haproxy/admin.sock" <<'PY'
import socket, sys
for name in ("a", "b"):
    with socket.socket(socket.AF_UNIX) as s:
        s.connect(sys.argv[1]); s.sendall(f"set server synccore/{name} state maint\n".encode()); s.recv(1024)
PY
"$python" Tests/Deploying/deploying_clients.py "$root/var/lib/synccore/public-key.pem" "$root/root/synccore-*.log"
curl -s http://10.0.0.2:14433/metrics | grep -q 'synccore_rpcs_total{method="messages.sendMessage",outcome="ok"}'
echo "deploying walk-through: two processes on this machine and one on another served the clients through HAProxy"
