#!/usr/bin/env bash
# kurigram 2.2.26 (a Pyrogram fork, the second client library) against a real `synccore server` on 127.0.0.1: three
# seeded users and a second session of Alice's run the everyday flows of kurigram_flows.py through kurigram's own API
# and update handlers, each change observed live, with no error logged by any client; Alice sends Bob a photo and a
# document, which he downloads (kurigram_media.py; with SYNCCORE_TEST_POSTGRES, also across two server processes on one
# database, uploaded to one and downloaded from the other); then, on a two-DC server, a DC 1
# user who starts on DC 2 follows PHONE_MIGRATE_1 (kurigram_migrate.py).
# Needs Tests/Interop/.venv with kurigram==2.2.26 and a built synccore.
set -euo pipefail
cd "$(dirname "$0")/../.."
synccore="${1:-$(swift build --show-bin-path)/synccore}"
python=$(pwd)/Tests/Interop/.venv/bin/python
work=$(mktemp -d)
server_pid=""
cleanup() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true; rm -rf "$work"; }
trap cleanup EXIT

source Tests/Faults/start_server.sh

start_server 0 --export-public-key "$work/public.pem"
(cd Tests/Interop && timeout 300 "$python" kurigram_flows.py "$port" "$work/public.pem" "$work/sessions")
(cd Tests/Interop && timeout 300 "$python" kurigram_media.py "$port" "$work/public.pem" "$work/media-sessions")
kill "$server_pid"; wait "$server_pid" 2>/dev/null || true
server_pid=""
if [ -n "${SYNCCORE_TEST_POSTGRES:-}" ]; then
    # The same files across two processes of one data center on PostgreSQL: Alice uploads to one, Bob downloads
    # from the other.
    database="synccore_kurigram_media_$$"
    psql -q "$SYNCCORE_TEST_POSTGRES" -c "CREATE DATABASE $database"
    url="${SYNCCORE_TEST_POSTGRES%/*}/$database"
    "$synccore" server --port 0 --postgres "$url" --data "$work/pg-a" --seed dev --login-code 12345 \
        --export-public-key "$work/pg.pem" > "$work/pg-a.out" 2> "$work/pg-a.log" &
    first=$!
    "$synccore" server --port 0 --postgres "$url" --data "$work/pg-b" --login-code 12345 > "$work/pg-b.out" 2> "$work/pg-b.log" &
    second=$!
    listening() { grep -o 'listening on 127.0.0.1:[0-9]*' "$1" 2>/dev/null | head -1 | cut -d: -f2 || true; }
    for _ in $(seq 1 200); do
        port_a=$(listening "$work/pg-a.out"); port_b=$(listening "$work/pg-b.out")
        [ -n "$port_a" ] && [ -n "$port_b" ] && break
        sleep 0.1
    done
    status=0
    (cd Tests/Interop && timeout 300 "$python" kurigram_media.py "$port_a" "$work/pg.pem" "$work/pg-sessions" "$port_b") || status=$?
    kill "$first" "$second" 2>/dev/null || true
    wait "$first" "$second" 2>/dev/null || true
    psql -q "$SYNCCORE_TEST_POSTGRES" -c "DROP DATABASE IF EXISTS $database" >/dev/null 2>&1 || true
    if [ "$status" -ne 0 ]; then tail -20 "$work/pg-a.log" "$work/pg-b.log" >&2; exit "$status"; fi
fi
start_two_dc_server
(cd Tests/Interop && timeout 120 "$python" kurigram_migrate.py "$dc2" "$work/public-dcs.pem" "$work/migrate-sessions")
