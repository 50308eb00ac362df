#!/usr/bin/env bash
# A guard against slowdowns: builds BASE (a commit, default HEAD~1) in a scratch folder of its own and the working
# tree as it is, both in release, then runs every benchmark of both builds alternately (ROUNDS rounds, default 3, each
# `synccore bench all --json --seconds SECONDS`), and prints each figure's median for both, the ratio (above 1: the
# working tree is better, whichever way the figure points) and a mark on every figure that fell by more than 10 %.
# It also counts the server's instructions per sent message under `valgrind --tool=callgrind`, which is repeatable on
# a busy machine where seconds are not: the server's instructions with 500 messages sent, less those of a run with
# none, over 500.
#
#   bash Scripts/bench-compare.sh [BASE] [ROUNDS] [SECONDS]
#
# Exits 1 when a figure fell by more than 10 %. The scratch folders (.build-compare/) stay for the next run.
set -euo pipefail
cd "$(dirname "$0")/.."
base=${1:-HEAD~1}
rounds=${2:-3}
seconds=${3:-1}
work=$PWD/.build-compare
commit=$(git rev-parse --verify "$base^{commit}")
mkdir -p "$work"

echo "=== building $base ($commit) in $work/base"
rm -rf "$work/base-src"
mkdir -p "$work/base-src"
git archive "$commit" | tar -x -C "$work/base-src"
swift build -c release --product synccore --package-path "$work/base-src" --scratch-path "$work/base"
base_bin=$(swift build -c release --package-path "$work/base-src" --scratch-path "$work/base" --show-bin-path)/synccore
echo "=== building the working tree"
swift build -c release --product synccore
head_bin=$(swift build -c release --show-bin-path)/synccore

results=$work/results
rm -rf "$results"
mkdir -p "$results"
for round in $(seq 1 "$rounds"); do
    for side in base head; do
        bin=base_bin; [ "$side" = head ] && bin=head_bin
        echo "=== round $round of $rounds: $side"
        "${!bin}" bench all --json --seconds "$seconds" > "$results/$side-$round.jsonl"
    done
done

# Instructions per sent message: the server under callgrind, once with no message and once with $messages. The
# binary runs stripped of its debug information (valgrind 3.19 cannot read Swift's DWARF 5). Where valgrind cannot run
# it at all, the figure is reported as unavailable rather than guessed.
messages=500
instructions() {   # BIN COUNT → the server's total instructions, or nothing when valgrind could not run it
    local bin=$1 count=$2 data out port pid total
    data=$(mktemp -d)
    out=$(mktemp)
    strip --strip-debug -o "$data/synccore" "$bin"
    valgrind --tool=callgrind --callgrind-out-file="$data/callgrind.out" "$data/synccore" server --port 0 --data "$data/server" \
        --seed dev --login-code 12345 --send-rate 0 --log-level error > "$out" 2>"$data/valgrind.log" &
    pid=$!
    port=""
    for _ in $(seq 1 600); do
        port=$(grep -oE 'listening on 127\.0\.0\.1:[0-9]+' "$out" | head -1 | cut -d: -f2 || true)
        [ -n "$port" ] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.2
    done
    if [ -z "$port" ]; then
        echo "valgrind could not run the server: $(grep -m1 -E 'INTERNAL ERROR|impossible|error' "$data/valgrind.log" || echo 'no port within 120 s')" >&2
        kill "$pid" 2>/dev/null || true
        rm -rf "$data" "$out"
        return 0
    fi
    if [ "$count" -gt 0 ]; then
        "$bin" debug client-sends --port "$port" --data "$data/server" --count "$count" > /dev/null
    fi
    kill -TERM "$pid"
    wait "$pid" || true
    total=$(grep -E '^(summary|totals):' "$data/callgrind.out" | head -1 | awk '{print $2}')
    rm -rf "$data" "$out"
    echo "$total"
}
echo "=== instructions per sent message (valgrind --tool=callgrind, $messages messages)"
for side in base head; do
    bin=base_bin; [ "$side" = head ] && bin=head_bin
    idle=$(instructions "${!bin}" 0)
    busy=""
    [ -n "$idle" ] && busy=$(instructions "${!bin}" "$messages")
    if [ -n "$idle" ] && [ -n "$busy" ]; then
        echo "{\"bench\": \"server.instructions_per_send\", \"value\": $(( (busy - idle) / messages )), \"unit\": \"instr/msg\", \"higher_is_better\": false}" \
            > "$results/$side-callgrind.jsonl"
    else
        echo "$side: instructions per sent message unavailable (valgrind could not run the binary)"
    fi
done

python3 - "$results" "$base" <<'EOF'
import glob, json, os, statistics, sys
results, base = sys.argv[1], sys.argv[2]
def load(side):
    figures = {}
    for path in sorted(glob.glob(os.path.join(results, f"{side}-*.jsonl"))):
        for line in open(path):
            line = line.strip()
            if not line.startswith("{"):
                continue
            figure = json.loads(line)
            figures.setdefault(figure["bench"], {"unit": figure.get("unit", ""), "higher": figure.get("higher_is_better", True),
                                                 "values": []})["values"].append(figure["value"])
    return figures
old, new = load("base"), load("head")
fell = []
print(f"\n{'figure':<34} {'unit':<10} {base:>14} {'working tree':>14} {'ratio':>7}")
for name in sorted(set(old) | set(new)):
    if name not in old or name not in new:
        print(f"{name:<34} {'':<10} {'—' if name not in old else '':>14} {'—' if name not in new else '':>14}   only one build has it")
        continue
    a, b = statistics.median(old[name]["values"]), statistics.median(new[name]["values"])
    higher = new[name]["higher"]
    ratio = (b / a if higher else a / b) if a and b else float("nan")
    mark = "  FELL" if ratio < 0.9 else ""
    if ratio < 0.9:
        fell.append(name)
    print(f"{name:<34} {new[name]['unit']:<10} {a:>14.6g} {b:>14.6g} {ratio:>7.2f}{mark}")
print(f"\nratio above 1: the working tree is better. {len(fell)} figure(s) fell by more than 10 %" + (": " + ", ".join(fell) if fell else ""))
sys.exit(1 if fell else 0)
EOF
