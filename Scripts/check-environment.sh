#!/usr/bin/env bash
# Fails when the libraries read the clock or system randomness other than through `SyncEnvironment`
# (Sources/MTProto/Environment/): `Date()`, `ContinuousClock`, `SuspendingClock`, `.random(` and
# `SystemRandomNumberGenerator` may appear only in a file whose name says Environment, or in a call that takes the
# injected generator (`using:`). Default parameter values count: they are reads too.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='Date\(\)|ContinuousClock|SuspendingClock|\.random\(|SystemRandomNumberGenerator'
found=$(grep -rnE "$pattern" Sources/SyncEngine Sources/MTProto Sources/MTProtoNIO Sources/SyncServer --include='*.swift' \
    | grep -v 'Environment[^/]*\.swift:' | grep -v 'using:' || true)
if [ -n "$found" ]; then
    echo "$found"
    echo "the lines above read the clock or system randomness directly; take them from SyncEnvironment"
    exit 1
fi
echo "environment: no direct clock or randomness reads in SyncEngine, MTProto, MTProtoNIO, SyncServer"
