#!/usr/bin/env bash
# What a note, a revision and an attachment cost in storage, on each backend: the figures
# docs/scaling.md's 10,000-user arithmetic is built on.
#
# Starts the built debug notes-server on a fresh SQLite database and on a fresh database in a
# throwaway PostgreSQL cluster (scripts/postgres-test-cluster), uploads NOTES notes of about
# 2 KB with the real `notes` client, changes each once (a second revision each), then uploads
# IMAGES attachments of 200 KB of random bytes, measuring the database after each step
# (SQLite: its file, checkpointed, and the content directory; PostgreSQL: pg_database_size
# after VACUUM). Stops everything it started on every exit.
#
# Usage: bench/sizes.sh [NOTES] [IMAGES]   (after `swift build`; defaults 2000 and 100)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
notes_count=${1:-2000}
images=${2:-100}
server=$root/.build/debug/notes-server
client=$root/.build/debug/notes
[ -x "$server" ] && [ -x "$client" ] || { echo "sizes: build first (swift build)" >&2; exit 1; }

work=$(mktemp -d)
server_pid=""
cluster=""
cleanup() {
    if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; wait "$server_pid" 2>/dev/null || true; fi
    [ -n "$cluster" ] && scripts/postgres-test-cluster stop "$cluster" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

export HOME=$work/home XDG_CONFIG_HOME=$work/home/config
mkdir -p "$XDG_CONFIG_HOME"

start_server() {
    "$server" serve --db "$1" --listen 127.0.0.1:0 >"$work/server.out" 2>"$work/server.err" &
    server_pid=$!
    for _ in $(seq 1 300); do
        url=$(sed -n 's/.*listening on \(http:\/\/127\.0\.0\.1:[0-9]*\).*/\1/p' "$work/server.out" | head -n 1)
        [ -n "$url" ] && return 0
        sleep 0.1
    done
    echo "sizes: the server did not start: $(cat "$work/server.err")" >&2
    exit 1
}

stop_server() {
    kill "$server_pid"
    wait "$server_pid" || true
    server_pid=""
}

# Writes NOTES notes of ~2 KB into folder $1 in 50 subfolders (deterministic text).
make_notes() {
    python3 - "$1" "$notes_count" <<'PY'
import os, sys, random
folder, count = sys.argv[1], int(sys.argv[2])
rng = random.Random(7)
words = [w.strip() for w in open("/usr/share/dict/words")] if os.path.exists("/usr/share/dict/words") else \
    ["note", "sync", "server", "client", "folder", "revision", "markdown", "list", "table", "link", "page", "idea"]
for i in range(count):
    sub = os.path.join(folder, f"f{i % 50:02d}")
    os.makedirs(sub, exist_ok=True)
    lines, size = [f"# Note {i}", ""], 0
    while size < 2000:
        line = " ".join(rng.choice(words) for _ in range(12))
        lines.append(line)
        size += len(line) + 1
    open(os.path.join(sub, f"note-{i}.md"), "w").write("\n".join(lines) + "\n")
PY
}

edit_notes() {
    find "$1" -name '*.md' -exec sh -c 'for f; do printf "\nedited once more\n" >>"$f"; done' sh {} +
}

make_images() {
    mkdir -p "$1/images"
    for i in $(seq 1 "$images"); do head -c 204800 /dev/urandom >"$1/images/image-$i.bin"; done
}

# Measures: SQLite file + content directory, or PostgreSQL's database size.
measure() {
    case "$1" in
        postgres*) psql -X -q -t -A -d "$1" -c "VACUUM" -c "SELECT pg_database_size(current_database())" | tail -n 1 ;;
        *) sqlite3 "$1" "PRAGMA wal_checkpoint(TRUNCATE);" >/dev/null; stat -c %s "$1" ;;
    esac
}

content_bytes() {
    case "$1" in
        postgres*) psql -X -q -t -A -d "$1" -c "SELECT pg_total_relation_size('content_chunks')" ;;
        *) du -sb "$1.content" 2>/dev/null | cut -f1 || echo 0 ;;
    esac
}

run() {
    local backend=$1 db=$2
    local folder=$work/$backend
    echo "correct horse battery" | "$server" user add alice --password-stdin --db "$db" >/dev/null
    start_server "$db"
    echo "correct horse battery" | "$client" login --server "$url" --username alice --password-stdin >/dev/null
    mkdir -p "$folder"
    "$client" init "$folder" --server "$url" --device bench >/dev/null
    local empty; empty=$(measure "$db")
    make_notes "$folder"
    "$client" sync "$folder" >/dev/null
    local with_notes; with_notes=$(measure "$db")
    edit_notes "$folder"
    "$client" sync "$folder" >/dev/null
    local with_revisions; with_revisions=$(measure "$db")
    local before_images; before_images=$(content_bytes "$db")
    make_images "$folder"
    "$client" sync "$folder" >/dev/null
    local with_images; with_images=$(measure "$db")
    local images_stored; images_stored=$(content_bytes "$db")
    local text_bytes; text_bytes=$(find "$folder" -name '*.md' -exec cat {} + | wc -c)
    stop_server
    python3 - "$backend" "$notes_count" "$images" "$empty" "$with_notes" "$with_revisions" "$with_images" "$before_images" "$images_stored" "$text_bytes" <<'PY'
import sys
backend, n, images, empty, notes, revisions, with_images, before, stored, text = sys.argv[1], *map(int, sys.argv[2:])
print(f"{backend}: {n} notes, {text / n:.0f} B of text each on average")
print(f"  database per note (first revision): {(notes - empty) / n:,.0f} B")
print(f"  database per further revision:      {(revisions - notes) / n:,.0f} B")
print(f"  attachment content per 200 KiB file: {(stored - before) / images:,.0f} B stored "
      f"(database grew {(with_images - revisions) / images:,.0f} B per file)")
PY
}

run sqlite "$work/notes.sqlite"
if cluster=$(scripts/postgres-test-cluster start 2>/dev/null); then
    psql -X -q -d "postgresql://postgres@/postgres?host=$cluster" -c "CREATE DATABASE sizes" >/dev/null
    run postgres "postgresql://postgres@/sizes?host=$cluster"
else
    echo "postgres: skipped (no cluster could be started; install Debian's postgresql)"
fi
