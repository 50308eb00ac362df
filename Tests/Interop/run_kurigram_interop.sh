#!/usr/bin/env bash
# kurigram 2.2.26 (a Pyrogram fork, the second client library) against a real `synccore server` on 127.0.0.1: three
# seeded users and a second session of Alice's run the everyday flows of kurigram_flows.py through kurigram's own API
# and update handlers, each change observed live, with no error logged by any client; Alice sends Bob a photo and a
# document, which he downloads (kurigram_media.py); then, on a two-DC server, a DC 1
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
start_two_dc_server
(cd Tests/Interop && timeout 120 "$python" kurigram_migrate.py "$dc2" "$work/public-dcs.pem" "$work/migrate-sessions")
