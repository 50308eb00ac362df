#!/usr/bin/env bash
# Client crash safety: Bob's account catches up on messages Alice sent while it was offline and is killed with SIGKILL
# at a random point of the catch-up, 50 times. After every kill it is started again and must converge: exactly the
# messages Alice sent, each stored once, and its committed cursor at the server's pts (`synccore debug client-catch-up
# --expect`). Bounded: 50 rounds of 1,000 messages, every step under a timeout.
set -euo pipefail
cd "$(dirname "$0")/../.."
synccore="${1:-$(swift build --show-bin-path)/synccore}"
rounds="${ROUNDS:-50}"
work=$(mktemp -d)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill -9 "$server_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

source Tests/Faults/start_server.sh

# Small difference pages: a catch-up is several transactions, so kills land between and inside them.
start_server 0 --send-rate 0 --log-level error --difference-page 50
timeout 60 "$synccore" debug client-catch-up --port "$port" --data "$work/data" --dir "$work/bob" --expect 0 > /dev/null
sent=0
killed_mid_way=0
for round in $(seq 1 "$rounds"); do
    timeout 60 "$synccore" debug client-sends --port "$port" --data "$work/data" --offset "$sent" --count 1000
    sent=$((sent + 1000))
    # Started directly (no `timeout` wrapper): SIGKILL must reach the client itself, which is killed within 0.15 s.
    "$synccore" debug client-catch-up --port "$port" --data "$work/data" --dir "$work/bob" > /dev/null 2>&1 &
    client_pid=$!
    sleep "0.$(printf '%03d' $(( RANDOM % 150 )))"   # a whole catch-up of 1,000 takes ~0.1-0.2 s here
    if kill -9 "$client_pid" 2>/dev/null; then killed_mid_way=$((killed_mid_way + 1)); fi
    wait "$client_pid" 2>/dev/null || true
    if ! result=$(timeout 120 "$synccore" debug client-catch-up --port "$port" --data "$work/data" --dir "$work/bob" --expect "$sent" 2>&1); then
        echo "round $round: $result" >&2
        exit 1
    fi
done
echo "client crash test: $rounds rounds ($killed_mid_way SIGKILLs landed before the catch-up ended); after each restart $result"
