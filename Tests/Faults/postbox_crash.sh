#!/usr/bin/env bash
# Postbox crash safety: a child process commits a stream of transactions and is killed with SIGKILL at a random
# point, 100 times. After every kill the database must open, pass PRAGMA integrity_check, and hold every
# transaction wholly or not at all (`synccore debug postbox-crash-verify`). Bounded: 100 rounds of < 0.5 s each.
set -euo pipefail
cd "$(dirname "$0")/../.."
synccore="${1:-$(swift build --show-bin-path)/synccore}"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
db="$work/crash.sqlite"
for round in $(seq 1 100); do
    "$synccore" debug postbox-crash-writer --path "$db" > /dev/null 2>&1 &
    pid=$!
    sleep "0.$(( (RANDOM % 40) + 5 ))"
    kill -9 "$pid" 2>/dev/null || true
    wait "$pid" 2>/dev/null || true
    if ! result=$("$synccore" debug postbox-crash-verify --path "$db" 2>&1); then
        echo "round $round: $result" >&2
        exit 1
    fi
done
echo "postbox crash test: 100 SIGKILLs, every reopen intact; last check: $result"
