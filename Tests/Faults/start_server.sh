# Sourced by the fault and interop scripts: `start_server PORT EXTRA_ARGS…` starts `$synccore server` on PORT (0 for
# a free one) with `--data "$work/data" --seed dev --login-code 12345`, sets `server_pid` and, once it listens,
# `port` (the first DC's). Gives up after 10 s with the server's log.
start_server() {
    local requested=$1
    shift
    "$synccore" server --port "$requested" --data "$work/data" --seed dev --login-code 12345 "$@" \
        > "$work/server.out" 2> "$work/server.log" &
    server_pid=$!
    for _ in $(seq 1 100); do
        port=$(grep -o 'listening on 127.0.0.1:[0-9]*' "$work/server.out" 2>/dev/null | head -1 | cut -d: -f2 || true)
        [ -n "$port" ] && return 0
        sleep 0.1
    done
    echo "server did not start:" >&2; cat "$work/server.log" >&2; exit 1
}

# `start_two_dc_server`: `$synccore server --dcs 2` on free ports with `--data "$work/data-dcs"`, its key exported to
# "$work/public-dcs.pem"; sets `server_pid` and, once DC 2 listens, `dc2` (its port). Gives up after 10 s with its log.
start_two_dc_server() {
    "$synccore" server --port 0 --dcs 2 --data "$work/data-dcs" --seed dev --login-code 12345 --export-public-key "$work/public-dcs.pem" \
        > "$work/dcs.out" 2> "$work/dcs.log" &
    server_pid=$!
    for _ in $(seq 1 100); do
        dc2=$(grep -o 'dc 2 listening on 127.0.0.1:[0-9]*' "$work/dcs.out" 2>/dev/null | cut -d: -f2 || true)
        [ -n "$dc2" ] && return 0
        sleep 0.1
    done
    echo "two-DC server did not start:" >&2; cat "$work/dcs.log" >&2; exit 1
}
