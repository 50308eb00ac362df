#!/usr/bin/env bash
# Fails on documentation that points where a reader of the package cannot follow: a relative Markdown link to a file
# that does not exist, any path that leaves the repository (`../`), or a cited docs/ file that is not there. Then builds
# the DocC catalogs of every library from the debug build's modules and fails on any DocC warning (a broken symbol link,
# a missing page). Run after `swift build`; writes the archives to .build/docs.
set -euo pipefail
cd "$(dirname "$0")/.."
status=0
# 1. Links: relative Markdown links in the Markdown files must resolve inside the repository.
while IFS= read -r file; do
    dir=$(dirname "$file")
    while IFS= read -r target; do
        path=${target%%#*}
        [ -z "$path" ] && continue
        case "$path" in http://*|https://*|mailto:*) continue ;; esac
        resolved=$(realpath -m "$dir/$path")
        if [[ "$resolved" != "$PWD"/* ]] || [ ! -e "$resolved" ]; then
            echo "$file: link to $target does not resolve inside the repository"
            status=1
        fi
    done < <(grep -oE '\]\([^)]+\)' "$file" | sed -E 's/^\]\((.*)\)$/\1/' | cut -d' ' -f1)
done < <(git ls-files --cached --others --exclude-standard '*.md')
# 2. Paths that leave the repository, and docs/ files cited from code that do not exist.
# (The interop virtualenv, Tests/Interop/.venv, holds other projects' files: not ours to check.)
if grep -rnE --exclude-dir=.venv '\.\./shared|\.\./reference' Sources Tests Scripts docs README.md Package.swift; then
    echo "the lines above cite files outside the repository"
    status=1
fi
while IFS= read -r cited; do
    if [ ! -e "$cited" ]; then echo "cited but missing: $cited"; status=1; fi
done < <(grep -rhoE --exclude-dir=.venv 'docs/[A-Za-z0-9_.-]+\.md' Sources Tests Scripts README.md Package.swift | sort -u)
[ $status -eq 0 ] && echo "links: every relative link and cited docs/ file is inside the repository"

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
for module in TL MTProto MTProtoNIO Postbox SyncEngine SyncServer; do
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
