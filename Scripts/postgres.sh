#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and benchmarks, on a free loopback port.
#
#   Scripts/postgres.sh start DIR [--tls]
#                                   creates the cluster in DIR (initdb), starts it (pg_ctl) and prints its URL;
#                                   with --tls it also offers TLS, with a self-signed certificate for 127.0.0.1 made
#                                   by the openssl command (DIR/server.crt: give it as sslrootcert to verify it),
#                                   and a role synccore_cert that logs in with the client certificate DIR/client.crt
#                                   (key DIR/client.key) only; and a role synccore_password that logs in with the
#                                   password synccore-test-password only (SCRAM), for the password tests
#   Scripts/postgres.sh stop DIR    stops it (DIR stays; delete it yourself)
#   Scripts/postgres.sh restart DIR [SECONDS]
#                                   stops it, waits SECONDS (0), and starts it on the same port (fault tests)
#
# Trust authentication on 127.0.0.1 only: the cluster is for this machine's tests, never for data that matters.
# When run as root, the server runs as the `postgres` user (PostgreSQL refuses to run as root).
set -euo pipefail

command=${1:-}
dir=${2:-}
if [ -z "$command" ] || [ -z "$dir" ]; then
    echo "usage: $0 start|stop|restart DIR [SECONDS]" >&2
    exit 2
fi

bindir=""
if command -v pg_config >/dev/null 2>&1 && [ -x "$(pg_config --bindir)/initdb" ]; then bindir=$(pg_config --bindir); fi
if [ -z "$bindir" ]; then
    bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)
fi
if [ -z "$bindir" ] || [ ! -x "$bindir/initdb" ]; then
    echo "PostgreSQL's server binaries (initdb, pg_ctl) are not installed (Debian: apt-get install postgresql)" >&2
    exit 1
fi

# The server outlives this script: it must not keep the caller's pipes open (a test reading this script's output,
# or its own output piped on, would wait for an end that never comes).
detach() {
    for fd in /proc/$$/fd/*; do
        fd=${fd##*/}
        if [ "$fd" -gt 2 ] 2>/dev/null; then eval "exec $fd>&-" 2>/dev/null || true; fi
    done
}

as_owner() {
    if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Starts the cluster in $dir on $port, detached (start and restart).
launch() {
    ( detach; as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c max_connections=300 -c shared_buffers=256MB" start </dev/null >/dev/null 2>&1 ) \
        || { cat "$dir/server.log" >&2; exit 1; }
}

case "$command" in
start)
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
    port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_owner "$bindir/initdb" -D "$dir/data" -U synccore --auth=trust -E UTF8 --no-locale >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    echo "$port" > "$dir/port"
    tls=false
    if [ "${3:-}" = "--tls" ]; then tls=true; elif [ -n "${3:-}" ]; then echo "unknown option: $3" >&2; exit 2; fi
    if $tls; then
        command -v openssl >/dev/null 2>&1 || { echo "--tls needs the openssl command (Debian: apt-get install openssl)" >&2; exit 1; }
        openssl req -x509 -newkey rsa:2048 -nodes -days 7 -subj "/CN=synccore test cluster" \
            -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" -keyout "$dir/server.key" -out "$dir/server.crt" \
            >"$dir/openssl.log" 2>&1 || { cat "$dir/openssl.log" >&2; exit 1; }
        # Client certificates: a CA of the cluster's own signs DIR/client.crt (key DIR/client.key) for the role
        # synccore_cert, which may log in over TLS with that certificate only (pg_hba's `cert` method).
        openssl req -x509 -newkey rsa:2048 -nodes -days 7 -subj "/CN=synccore test client CA" \
            -keyout "$dir/client-ca.key" -out "$dir/client-ca.crt" >>"$dir/openssl.log" 2>&1 \
            && openssl req -newkey rsa:2048 -nodes -subj "/CN=synccore_cert" -keyout "$dir/client.key" -out "$dir/client.csr" \
                >>"$dir/openssl.log" 2>&1 \
            && openssl x509 -req -in "$dir/client.csr" -CA "$dir/client-ca.crt" -CAkey "$dir/client-ca.key" -CAcreateserial \
                -days 7 -extfile <(printf "extendedKeyUsage = clientAuth\n") -out "$dir/client.crt" >>"$dir/openssl.log" 2>&1 \
            || { cat "$dir/openssl.log" >&2; exit 1; }
        chmod 600 "$dir/server.key" "$dir/client.key"
        if [ "$(id -u)" = 0 ]; then chown postgres "$dir/server.key" "$dir/server.crt" "$dir/client-ca.crt"; fi
        printf "ssl = on\nssl_cert_file = '%s'\nssl_key_file = '%s'\nssl_ca_file = '%s'\n" \
            "$dir/server.crt" "$dir/server.key" "$dir/client-ca.crt" >> "$dir/data/postgresql.conf"
        { echo "hostssl all synccore_cert 127.0.0.1/32 cert"; echo "host all synccore_password 127.0.0.1/32 scram-sha-256"
          cat "$dir/data/pg_hba.conf"; } > "$dir/pg_hba.conf.new"
        cat "$dir/pg_hba.conf.new" > "$dir/data/pg_hba.conf" && rm "$dir/pg_hba.conf.new"
    fi
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir/port"; fi
    launch
    if $tls; then
        as_owner "$bindir/psql" -h "$dir" -p "$port" -U synccore -d postgres -qc "CREATE ROLE synccore_cert LOGIN SUPERUSER" \
            -c "CREATE ROLE synccore_password LOGIN SUPERUSER PASSWORD 'synccore-test-password'" >/dev/null || exit 1
    fi
    echo "postgres://synccore@127.0.0.1:$port/postgres"
    ;;
stop)
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    ;;
restart)
    port=$(cat "$dir/port")
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null
    sleep "${3:-0}"
    launch
    ;;
*)
    echo "unknown command: $command" >&2
    exit 2
    ;;
esac
