#!/usr/bin/env bash
# Telethon 1.45 through HAProxy to two `synccore server` processes of one data center on one PostgreSQL database,
# each with its own data directory (telethon_balanced.py). Needs Tests/Interop/.venv with telethon==1.45.0, haproxy,
# psql, a built synccore, and SYNCCORE_TEST_POSTGRES (a PostgreSQL URL whose role may create databases).
set -euo pipefail
cd "$(dirname "$0")/../.."
synccore="${1:-$(swift build --show-bin-path)/synccore}"
python=Tests/Interop/.venv/bin/python
: "${SYNCCORE_TEST_POSTGRES:?a PostgreSQL URL (Scripts/postgres.sh start DIR prints one)}"
database="synccore_balanced_$$"
work=$(mktemp -d)
cleanup() {
    psql -q "$SYNCCORE_TEST_POSTGRES" -c "DROP DATABASE IF EXISTS $database" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
psql -q "$SYNCCORE_TEST_POSTGRES" -c "CREATE DATABASE $database"
status=0
timeout 600 "$python" Tests/Interop/telethon_balanced.py "$synccore" "${SYNCCORE_TEST_POSTGRES%/*}/$database" "$work" || status=$?
if [ "$status" -ne 0 ]; then
    for log in "$work"/server-*.log "$work"/haproxy.log; do echo "--- $log"; tail -40 "$log"; done >&2
fi
exit "$status"
