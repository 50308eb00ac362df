#!/usr/bin/env python3
"""Fails when a SQL statement of the server's storage is written in more than one file.

The server's statements are written once for both backends (Sources/SyncServer/Storage/SQL, `SQLText`); what only
one backend can say lives in that backend's files. This check keeps it so: every Swift string literal of
Sources/SyncServer that begins with SELECT, INSERT, UPDATE, DELETE, WITH or CREATE is compared with the others after
the differences that do not make another statement are taken out (PostgreSQL's $n and SQLite's ?n placeholders, `::type`
casts, interpolations, spacing and case). Prints each statement found in several files and exits 1, or prints the
count and exits 0.

    python3 Scripts/check-sql-once.py [ROOT]
"""
import collections
import os
import re
import sys

root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "Sources", "SyncServer")
literal = re.compile(r'"""(.*?)"""|"((?:[^"\\\n]|\\.)*)"', re.S)
statement = re.compile(r"^\s*(select|insert|update|delete|with|create)\s", re.I)


def normalized(text):
    text = re.sub(r"\\\((?:[^()]|\([^()]*\))*\)", "?", text)   # Swift interpolations
    text = re.sub(r"[$?]\d+", "?", text)                      # numbered placeholders
    text = re.sub(r"::\w+(\[\])?", "", text)                  # PostgreSQL casts
    return re.sub(r"\s+", " ", text).strip().lower()


files_of = collections.defaultdict(set)
for directory, _, names in os.walk(root):
    for name in names:
        if not name.endswith(".swift"):
            continue
        path = os.path.join(directory, name)
        with open(path, encoding="utf-8") as source:
            for match in literal.finditer(source.read()):
                text = match.group(1) if match.group(1) is not None else match.group(2)
                if text and statement.match(text):
                    files_of[normalized(text)].add(os.path.relpath(path, root))

repeated = {text: files for text, files in files_of.items() if len(files) > 1}
for text, files in sorted(repeated.items()):
    print("written in %d files (%s): %s" % (len(files), ", ".join(sorted(files)), text[:160]))
if repeated:
    print("%d of %d SQL statements are written in more than one file: write each once (Storage/SQL)" % (len(repeated), len(files_of)))
    sys.exit(1)
print("%d SQL statements, each written in one file" % len(files_of))
