#!/usr/bin/env bash
# Server crash safety: 8 clients send private messages as fast as they are acknowledged while the server is killed
# with SIGKILL at a random point, 5 times. After every restart each acknowledged message must exist and each seeded
# user's update log, replayed by getDifference from pts 0, must have no hole (`synccore debug server-burst-verify`).
# Bounded: 5 rounds of < 3 s of sending each, every step under a timeout.
set -euo pipefail
cd "$(dirname "$0")/../.."
synccore="${1:-$(swift build --show-bin-path)/synccore}"
work=$(mktemp -d)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill -9 "$server_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

source Tests/Faults/start_server.sh

start_server 0 --send-rate 0 --log-level error
for round in $(seq 1 5); do
    timeout 60 "$synccore" debug server-burst --port "$port" --data "$work/data" --acks "$work/acks-$round.txt" &
    burst_pid=$!
    sleep "1.$(( RANDOM % 10 ))"
    kill -9 "$server_pid"; wait "$server_pid" 2>/dev/null || true
    wait "$burst_pid" 2>/dev/null || true
    start_server "$port" --send-rate 0 --log-level error
    cat "$work"/acks-*.txt > "$work/acks.txt"
    if ! result=$(timeout 120 "$synccore" debug server-burst-verify --port "$port" --data "$work/data" --acks "$work/acks.txt" 2>&1); then
        echo "round $round: $result" >&2
        exit 1
    fi
    echo "round $round: $(wc -l < "$work/acks-$round.txt") sends acknowledged before the kill; $result"
done
echo "server crash test: 5 SIGKILLs during 8-client bursts; after every restart $result"
