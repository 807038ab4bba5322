#!/usr/bin/env bash
# Sync against rsync (a daemon on loopback), git and unison on the same corpus, side by side in
# one run (docs/architecture.md, Performance targets): initial upload to an empty account, initial clone into an empty folder,
# no-op sync, and sync after 10 notes changed. Every peer and `notes` reads and writes the same
# filesystem with a warm page cache; times are hyperfine medians.
#   NOTES=2000 bench/sync.sh     a quick run on fewer notes (default 10,000)
#   RUNS=10 bench/sync.sh        more runs per command (default 5)
source "$(dirname "$0")/common.sh"
sync_bench_setup
echo "sync bench: $notes notes, $(du -sh "$work/corpus" | cut -f1), $runs runs per command" >&2

# The rsync daemon, with its own config: one writable module on loopback.
start_rsync_daemon "$work"

bench_database "$work"
database=$BENCH_DB
start_notes_server "$database"
# Each upload run gets a new, empty account (and signs in to it); the last one stays filled. It
# starts once the server is idle: the search indexing that trails the previous run's upload (by
# design: docs/architecture.md, Performance targets) would otherwise run during this one, on the same two cores, and time it.
cat > "$work/new-account" <<SH
#!/usr/bin/env bash
set -euo pipefail
source "$ROOT/bench/common.sh"
SERVER_PID=$SERVER_PID wait_server_idle
n=\$(( \$(cat "$work/accounts" 2>/dev/null || echo 0) + 1 ))
echo "\$n" > "$work/accounts"
echo benchpassword | "$BIN/notes-server" user add "bench\$n" --password-stdin --db "$database" >/dev/null
echo benchpassword | "$BIN/notes" login --server "$SERVER_URL" --username "bench\$n" --password-stdin >/dev/null 2>&1
rm -rf "$work/ours"
cp -a "$work/corpus" "$work/ours"
SH
chmod +x "$work/new-account"
hf() { hyperfine --style basic --runs "$runs" "$@" >&2; }

# 1. Initial upload: every note into an empty account / an empty rsync module.
hf --export-json "$work/upload.json" \
    --prepare "rm -rf '$work/rsync-dest' && mkdir '$work/rsync-dest'" -n rsync "rsync -a '$work/corpus/' '$module'" \
    --prepare "'$work/new-account'" -n notes \
    "'$BIN/notes' init '$work/ours' --server '$SERVER_URL' 2>/dev/null && '$BIN/notes' sync '$work/ours' >/dev/null"

# 2. Initial clone into an empty folder, once the server finished indexing the uploads.
wait_server_idle
hf --export-json "$work/clone.json" \
    --prepare "rm -rf '$work/rsync-clone'" -n rsync "rsync -a '$module' '$work/rsync-clone/'" \
    --prepare "rm -rf '$work/clone'" -n notes "'$BIN/notes' clone '$SERVER_URL' '$work/clone' >/dev/null"

# Peers' replicas: a git work tree pushing to a bare repo, a unison pair.
make_sync_peers "$work"

# 3. No-op sync: nothing changed anywhere. 4. Ten notes changed.
time_noop_and_changed

echo "sync: $notes notes of ~2 KB in 50 folders; hyperfine medians of $runs runs"
report "upload$(bench_backend_label)" "rsync -a to daemon" "$(median_seconds "$work/upload.json" 0)" "$(median_seconds "$work/upload.json" 1)" "≤ 1.5"
report "clone$(bench_backend_label)" "rsync -a from daemon" "$(median_seconds "$work/clone.json" 0)" "$(median_seconds "$work/clone.json" 1)" "≤ 1.5"
report "no-op$(bench_backend_label)" "git add+push" "$(median_seconds "$work/noop.json" 1)" "$(median_seconds "$work/noop.json" 2)" "≤ 1.5"
report "no-op$(bench_backend_label)" "rsync" "$(median_seconds "$work/noop.json" 0)" "$(median_seconds "$work/noop.json" 2)" "≤ 0.5"
[ "$have_unison" = 1 ] && report "no-op$(bench_backend_label)" "unison (info)" "$(median_seconds "$work/noop.json" 3)" "$(median_seconds "$work/noop.json" 2)" "-"
[ "$have_unison" = 1 ] && report "10-changed$(bench_backend_label)" unison "$(median_seconds "$work/changed.json" 3)" "$(median_seconds "$work/changed.json" 2)" "≤ 1.0"
report "10-changed$(bench_backend_label)" rsync "$(median_seconds "$work/changed.json" 0)" "$(median_seconds "$work/changed.json" 2)" "≤ 0.5"
report "10-changed$(bench_backend_label)" "git (info)" "$(median_seconds "$work/changed.json" 1)" "$(median_seconds "$work/changed.json" 2)" "-"
