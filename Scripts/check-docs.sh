#!/usr/bin/env bash
# Builds the DocC catalogs (SyncEngine, Postbox, SyncServer) from the debug build's modules and fails on any DocC
# warning (a broken symbol link, a missing page). Run after `swift build`; writes the archives to .build/docs.
set -euo pipefail
cd "$(dirname "$0")/.."
bin=$(swift build --show-bin-path)
triple_dir=$(dirname "$bin")/$(basename "$bin")
symbols=$(mktemp -d)
trap 'rm -rf "$symbols"' EXIT
# The C modules the Swift modules import (GRDB's SQLite, swift-atomics' shims, zlib, our crypto shim).
maps=()
while IFS= read -r map; do maps+=(-Xcc "-fmodule-map-file=$map"); done < <(
    find .build/checkouts -name module.modulemap -not -path '*SQLCipher*' -not -path '*SQLiteCustom*'
    find "$triple_dir" -maxdepth 2 -name module.modulemap
    echo Sources/CZlib/module.modulemap)
mkdir -p .build/docs
status=0
for module in SyncEngine Postbox SyncServer; do
    rm -rf "${symbols:?}"/*
    swift symbolgraph-extract -module-name "$module" -I "$bin/Modules" -target "$(uname -m)-unknown-linux-gnu" \
        -output-dir "$symbols" -minimum-access-level public "${maps[@]}"
    out=$(docc convert "Sources/$module/$module.docc" --additional-symbol-graph-dir "$symbols" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.synccore.$module" \
        --output-path ".build/docs/$module.doccarchive" --analyze 2>&1 || true)
    # Only diagnostic lines count: DocC quotes the page's text around each note, and prose may say "error".
    if echo "$out" | grep -qE "^(warning|error):"; then
        echo "$out" | grep -E -A6 "^(warning|error):"
        status=1
    else
        echo "$module.docc: no warnings"
    fi
done
exit $status
