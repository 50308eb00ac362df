#!/usr/bin/env bash
# Fails when a library reads the clock or system randomness, or waits, other than through `SyncEnvironment`
# (Sources/MTProto/Environment/): `Date()`, `ContinuousClock`, `SuspendingClock`, `NIODeadline.now`, `.random(`,
# `SystemRandomNumberGenerator`, `SecureRandom()`, `Task.sleep` and parameters named `sleep:` (a component's own way of
# waiting) may appear only in a file whose name says Environment, or, for randomness, in a call that takes the injected
# generator (`using:`). Default parameter values count: they are reads too. Postbox, below the environment's layer,
# takes its waiting from its caller and reads no clock.
set -euo pipefail
cd "$(dirname "$0")/.."
pattern='Date\(\)|ContinuousClock|SuspendingClock|NIODeadline\.now|\.random\(|SystemRandomNumberGenerator|SecureRandom\(\)|Task\.sleep|[^.]\bsleep:'
found=$(grep -rnE "$pattern" Sources/Postbox Sources/SyncEngine Sources/MTProto Sources/MTProtoNIO Sources/SyncServer --include='*.swift' \
    | grep -v 'Environment[^/]*\.swift:' | grep -v 'using:' || true)
if [ -n "$found" ]; then
    echo "$found"
    echo "the lines above read the clock or system randomness, or wait, directly; take them from SyncEnvironment"
    exit 1
fi
echo "environment: no direct clock, randomness or waiting in Postbox, SyncEngine, MTProto, MTProtoNIO, SyncServer"
