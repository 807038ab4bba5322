#!/usr/bin/env bash
# WebDAV against rclone's own WebDAV server (`rclone serve webdav` over a plain folder), side by
# side in one run, both driven by the same rclone client:
#   1. 1,000 small notes (~2 KB, 20 folders) uploaded with `rclone copy --transfers 8` to an empty
#      space at /dav/personal/, against the same to `rclone serve webdav`: target ≤ 1.5 ×;
#   2. a no-op `rclone sync` of the same folder: target ≤ 1.5 ×.
# The corpus, rclone serve's folder and the server's database share one filesystem. The notes
# server acknowledges each PUT only once it is committed and fsync'd; rclone serve writes plain
# files without fsync, so the upload row compares a durable server with one that is not.
#   NOTES=100 RUNS=1 bench/webdav.sh   a quick smoke run
#   RUNS=5 bench/webdav.sh             more runs per command (default 3)
source "$(dirname "$0")/common.sh"
need_packages rclone hyperfine curl
build_release
notes=${NOTES:-1000}
runs=${RUNS:-3}
work=$(bench_workdir)
rclone_pid=""
cleanup() {
    stop_pid "${SERVER_PID:-}"
    stop_pid "$rclone_pid"
    bench_stop_postgres
    rm -rf "$work"
}
trap cleanup EXIT
export XDG_CONFIG_HOME="$work/config" HOME="$work/home" RCLONE_CONFIG="$work/rclone.conf"
mkdir -p "$work/home" "$work/served"
touch "$RCLONE_CONFIG"

python3 - "$work/corpus" "$notes" <<'PY'
import os, sys
out, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    folder = os.path.join(out, f"folder{i % 20:02d}")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"note{i:05d}.md"), "w") as f:
        f.write(f"# Note {i}\n\n" + ("Some words of a note, as people write them. " * 45) + "\n")
PY
echo "webdav bench: $notes notes ($(du -sh "$work/corpus" | cut -f1)), $runs runs per command" >&2

bench_database "$work"
password="bench password $RANDOM"
printf '%s\n' "$password" | "$BIN/notes-server" user add bench --password-stdin --db "$BENCH_DB" >/dev/null
start_notes_server "$BENCH_DB"
json() { python3 -c "import json, sys; print(json.load(sys.stdin)$1)"; }
session=$(curl -sf "$SERVER_URL/v1/auth/login" -H 'Content-Type: application/json' \
    -d "{\"username\": \"bench\", \"password\": \"$password\"}" | json "['access_token']")
token=$(curl -sf "$SERVER_URL/v1/tokens" -H "Authorization: Bearer $session" -H 'Content-Type: application/json' \
    -d '{"name": "bench", "scope": "write"}' | json "['token']")

rclone_port=$(free_port)
rclone serve webdav "$work/served" --addr "127.0.0.1:$rclone_port" --user bench --pass "$password" >"$work/rclone-serve.log" 2>&1 &
rclone_pid=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$rclone_port/" && break; sleep 0.1; done

export RCLONE_CONFIG_NOTES_TYPE=webdav RCLONE_CONFIG_NOTES_URL=$SERVER_URL/dav/personal/ RCLONE_CONFIG_NOTES_VENDOR=other \
    RCLONE_CONFIG_NOTES_USER=bench RCLONE_CONFIG_NOTES_PASS=$(rclone obscure "$token")
export RCLONE_CONFIG_PEER_TYPE=webdav RCLONE_CONFIG_PEER_URL=http://127.0.0.1:$rclone_port/ RCLONE_CONFIG_PEER_VENDOR=other \
    RCLONE_CONFIG_PEER_USER=bench RCLONE_CONFIG_PEER_PASS=$(rclone obscure "$password")

# Each upload run starts from an empty destination: the folder is deleted first (on the notes
# side it goes to the trash, so the next run writes new entries, as a first upload does).
clear_notes="rclone purge notes:up 2>/dev/null || true"
clear_peer="rclone purge peer:up 2>/dev/null || true"
wait_server_idle
hyperfine --runs "$runs" --export-json "$work/upload.json" \
    --prepare "$clear_peer" "rclone copy --transfers 8 $work/corpus peer:up" \
    --prepare "$clear_notes" "rclone copy --transfers 8 $work/corpus notes:up" >&2
report "webdav" "rclone serve webdav" "$(median_seconds "$work/upload.json" 0)" "$(median_seconds "$work/upload.json" 1)" "≤ 1.5 ×"

wait_server_idle
hyperfine --runs "$runs" --warmup 1 --export-json "$work/noop.json" \
    "rclone sync $work/corpus peer:up" \
    "rclone sync $work/corpus notes:up" >&2
report "webdav" "no-op rclone sync" "$(median_seconds "$work/noop.json" 0)" "$(median_seconds "$work/noop.json" 1)" "≤ 1.5 ×"
