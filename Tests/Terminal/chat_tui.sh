#!/usr/bin/env bash
# `synccore chat` as its users see it: two instances (Alice and Bob) in tmux against a `synccore server`, read back
# with `tm capture-pane`. Checks: a message Alice types appears in Bob's open chat and first as an unread badge in
# his list, which clears when he opens the chat; Alice sees ✓✓ once Bob read it; with the server stopped, Alice's
# message shows as pending under an offline banner and arrives once the server is back; on a new device of Bob's, a
# chat of 10,000 messages scrolled up with PgUp fills its holes until the chat's first message shows. Every wait is
# bounded; on a failure both screens and the server's log are printed.
set -euo pipefail
cd "$(dirname "$0")/../.."
synccore="${1:-$(swift build --show-bin-path)/synccore}"
work=$(mktemp -d)
server_pid=""
sessions=()
cleanup() {
    tm kill-server 2>/dev/null || true
    if [ -n "$server_pid" ]; then { kill -9 "$server_pid"; wait "$server_pid"; } 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
source Tests/Faults/start_server.sh
prefix="synccore-chat-$$"
# A tmux server of its own (its own socket), whatever else runs on the machine; TERM for the panes' programs.
tm() { tmux -L "$prefix" "$@"; }
export TERM="${TERM:-xterm-256color}"

fail() {
    echo "chat TUI check failed: $*" >&2
    for session in "${sessions[@]}"; do echo "--- $session" >&2; tm capture-pane -p -t "$session" >&2 || true; done
    echo "--- server log" >&2; tail -20 "$work/server.log" >&2 || true
    exit 1
}

# until MODE SESSION TEXT [SECONDS]: waits until the session's screen shows TEXT (MODE "shows": a fixed string;
# "matches": a grep -E pattern) or no longer shows it ("clears"), failing after SECONDS (15 by default).
until_screen() {
    local mode=$1 session=$2 text=$3 deadline=$(( $(date +%s) + ${4:-15} )) flags=-qF
    [ "$mode" = matches ] && flags=-qE
    while true; do
        if tm capture-pane -p -t "$prefix-$session" | grep $flags -- "$text"; then
            [ "$mode" != clears ] && return 0
        else
            [ "$mode" = clears ] && return 0
        fi
        [ "$(date +%s)" -lt "$deadline" ] || fail "$session: the screen never $mode '$text'"
        sleep 0.1
    done
}
wait_for() { until_screen shows "$@"; }
wait_for_pattern() { until_screen matches "$@"; }
wait_without() { until_screen clears "$@"; }

# open_chat NAME DIR: `synccore chat` on the account in DIR in a 100x30 tmux session.
open_chat() {
    tm new-session -d -s "$prefix-$1" -x 100 -y 30 "'$synccore' chat --dir '$2' 2> '$work/$1.err'; sleep 30"
    sessions+=("$prefix-$1")
    wait_for "$1" "synccore chat"
}

login() {
    timeout 30 "$synccore" login --server "127.0.0.1:$port" --key "$work/public.pem" --phone "$1" --code 12345 --dir "$2" > /dev/null
}

start_server 0 --send-rate 0 --log-level error --export-public-key "$work/public.pem"
login +15550001 "$work/alice"
login +15550002 "$work/bob"

open_chat alice "$work/alice"
open_chat bob "$work/bob"
wait_for alice "online"

# Alice opens her chat with Bob and writes; Bob sees an unread badge in his list, then the message in the chat.
tm send-keys -t "$prefix-alice" "/open @bob" Enter
wait_for alice "no messages yet"
tm send-keys -t "$prefix-alice" "hello Bob, 你好 👋" Enter
wait_for alice "me: hello Bob, 你好 👋 ✓"
wait_for_pattern bob "Alice +\(1\)│"
echo "Bob's list shows Alice's message as unread"
tm send-keys -t "$prefix-bob" Home
tm send-keys -t "$prefix-bob" Enter
wait_for bob "Alice: hello Bob, 你好 👋"
wait_without bob "(1)│"
echo "Bob opened the chat: the message shows and the badge cleared"
wait_for alice "me: hello Bob, 你好 👋 ✓✓"
echo "Alice sees ✓✓"

# The server stops: Alice's next message is pending under the offline banner, and arrives once the server is back.
{ kill -9 "$server_pid"; wait "$server_pid"; } 2>/dev/null || true
server_pid=""
wait_for alice "OFFLINE" 30
tm send-keys -t "$prefix-alice" "sent while offline" Enter
wait_for alice "me: sent while offline  (pending)"
echo "offline: Alice's message is pending"
start_server "$port" --send-rate 0 --log-level error
wait_for alice "online" 60
wait_for alice "me: sent while offline ✓" 60
wait_for bob "Alice: sent while offline" 60
echo "the server is back: the message left and Bob has it"

# 10,000 more messages in the chat, then Bob on a new device scrolls back to its first message through the holes.
timeout 300 "$synccore" debug client-sends --port "$port" --data "$work/data" --count 10000
login +15550002 "$work/bob-new"
open_chat bobnew "$work/bob-new"
wait_for bobnew "Alice"
tm send-keys -t "$prefix-bobnew" Enter
wait_for bobnew "Alice: m "
pages=0
deadline=$(( $(date +%s) + 240 ))
until tm capture-pane -p -t "$prefix-bobnew" | grep -qF "— the beginning of the chat —"; do
    [ "$(date +%s)" -lt "$deadline" ] || fail "scrolling up did not reach the first message in 240 s ($pages pages)"
    tm send-keys -t "$prefix-bobnew" PPage
    pages=$((pages + 1))
    sleep 0.05
done
wait_for bobnew "Alice: hello Bob, 你好 👋"
echo "Bob's new device scrolled $pages pages up to the chat's first message"
echo "chat TUI check passed"
