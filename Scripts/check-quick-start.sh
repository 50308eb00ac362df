#!/usr/bin/env bash
# The README's Swift quick start compiles as written in a package that depends on SyncCore, as an app's would: its
# first ```swift block must equal Examples/QuickStart/Sources/QuickStart/main.swift, and that package must build
# (with `import SyncEngine` alone, which re-exports what the `Account` API names).
set -euo pipefail
cd "$(dirname "$0")/.."
example=Examples/QuickStart/Sources/QuickStart/main.swift
snippet=$(mktemp)
trap 'rm -f "$snippet"' EXIT
awk '/^```swift$/ { inside = 1; next } inside && /^```$/ { exit } inside { print }' README.md > "$snippet"
if ! diff -u "$example" "$snippet"; then
    echo "the README's quick start (above, +) differs from $example (-): keep them equal" >&2
    exit 1
fi
# In the main package's build folder: the dependencies (NIO, crypto, GRDB, the SyncCore targets at the same paths)
# are already compiled there, so only the example itself is (5 s instead of three minutes); the main build is
# left as it was.
swift build --package-path Examples/QuickStart --scratch-path .build
echo "quick start: the README's snippet builds in Examples/QuickStart"
