#!/usr/bin/env bash
# A shared space with 20 members and 10,000 notes (docs/architecture.md, Performance targets):
# one member's no-op sync and sync after 10 notes changed, in a folder of the space, against
# the same peers and targets as bench/sync.sh's no-op and 10-changed rows (rsync to a daemon on
# loopback, git add+push, unison), side by side in one run on the same corpus and filesystem.
#   NOTES=2000 bench/spaces.sh   a quick run on fewer notes (default 10,000)
#   MEMBERS=20 bench/spaces.sh   members of the space, the owner included (default 20)
#   RUNS=10 bench/spaces.sh      more runs per command (default 5)
source "$(dirname "$0")/common.sh"
sync_bench_setup
members=${MEMBERS:-20}
echo "spaces bench: $notes notes, $(du -sh "$work/corpus" | cut -f1), $members members, $runs runs per command" >&2

start_rsync_daemon "$work"
rsync -a "$work/corpus/" "$module"

bench_database "$work"
start_notes_server "$BENCH_DB"
# The owner and members-1 others, each signed in; the owner makes Team and adds the others as
# editors, then fills it from a folder of it.
for n in $(seq "$members"); do
    echo benchpassword | "$BIN/notes-server" user add "member$n" --password-stdin --db "$BENCH_DB" >/dev/null
    echo benchpassword | "$BIN/notes" login --server "$SERVER_URL" --username "member$n" --password-stdin >/dev/null 2>&1
done
"$BIN/notes" space create Team --username member1 >/dev/null
for n in $(seq 2 "$members"); do
    "$BIN/notes" space add Team "member$n" --role editor --username member1 >/dev/null
done
cp -a "$work/corpus" "$work/owner"
"$BIN/notes" init "$work/owner" --server "$SERVER_URL" --username member1 --space Team >/dev/null 2>&1
"$BIN/notes" sync "$work/owner" >/dev/null
wait_server_idle
# The member measured: the last one added, with a folder of the space cloned from the server.
"$BIN/notes" clone "$SERVER_URL" "$work/ours" --username "member$members" --space Team >/dev/null
wait_server_idle

make_sync_peers "$work"

# No-op and 10-changed syncs of the member's folder of Team.
time_noop_and_changed

echo "spaces: a member's folder of a $members-member space of $notes notes of ~2 KB in 50 folders; hyperfine medians of $runs runs"
label="space$(bench_backend_label)"
report "$label no-op" "git add+push" "$(median_seconds "$work/noop.json" 1)" "$(median_seconds "$work/noop.json" 2)" "≤ 1.5"
report "$label no-op" "rsync" "$(median_seconds "$work/noop.json" 0)" "$(median_seconds "$work/noop.json" 2)" "≤ 0.5"
[ "$have_unison" = 1 ] && report "$label 10-changed" unison "$(median_seconds "$work/changed.json" 3)" "$(median_seconds "$work/changed.json" 2)" "≤ 1.0"
report "$label 10-changed" rsync "$(median_seconds "$work/changed.json" 0)" "$(median_seconds "$work/changed.json" 2)" "≤ 0.5"
