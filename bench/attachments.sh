#!/usr/bin/env bash
# Attachments against rsync (a daemon on loopback), side by side in one run:
#   1. 1,000 images of ~200 KB (random bytes: images do not compress) uploaded to an empty account;
#   2. one 1 GiB file uploaded to an empty account, then cloned into an empty folder;
#   3. the same with the server's contents in an S3 bucket (a SeaweedFS on loopback, from
#      Tests/s3/seaweedfs) beside the same server with its content directory: S3=0 skips these rows.
# The corpus, the rsync daemon's destination and the server's database and content store share one
# filesystem. Peak resident memory of the client (each run) and of the server (whole bench) is
# reported beside the times.
#   IMAGES=200 BIG_MIB=256 bench/attachments.sh   a quick run
#   RUNS=5 bench/attachments.sh                   more runs per command (default 3)
source "$(dirname "$0")/common.sh"
need_packages rsync hyperfine time
build_release
images=${IMAGES:-1000}
big_mib=${BIG_MIB:-1024}
runs=${RUNS:-3}
work=$(bench_workdir)
cleanup() {
    stop_pid "${SERVER_PID:-}"
    stop_pid "${DIRECTORY_SERVER_PID:-}"
    stop_pid "${S3_SERVER_PID:-}"
    [ -f "$work/weed/pid" ] && "$ROOT/Tests/s3/seaweedfs" stop "$work/weed"
    [ -f "$work/rsyncd.pid" ] && stop_pid "$(cat "$work/rsyncd.pid")"
    rm -rf "$work"
}
trap cleanup EXIT
export XDG_CONFIG_HOME="$work/config" HOME="$work/home"
mkdir -p "$work/home" "$work/rsync-dest"

python3 - "$work/images" "$images" <<'PY'
import os, sys
out, count = sys.argv[1], int(sys.argv[2])
for i in range(count):
    folder = os.path.join(out, f"album{i % 20:02d}")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"photo{i:04d}.jpg"), "wb") as f:
        f.write(os.urandom(180_000 + (i * 7919) % 40_000))
PY
mkdir -p "$work/big"
head -c $((big_mib * 1024 * 1024)) /dev/urandom > "$work/big/disk.img"
echo "attachments bench: $images images ($(du -sh "$work/images" | cut -f1)), one ${big_mib} MiB file, $runs runs per command" >&2

start_rsync_daemon "$work"

start_notes_server "$work/db.sqlite" --max-attachment-size 2G
# Kept apart: starting the S3 rows' server below sets SERVER_PID again.
DIRECTORY_SERVER_PID=$SERVER_PID
# Each upload run signs in to a new, empty account with a copy of CORPUS; the account before it is
# deleted with its content, so the content store holds one copy at a time.
cat > "$work/new-account" <<SH
#!/usr/bin/env bash
set -euo pipefail
corpus=\$1
db=\${2:-$work/db.sqlite}
url=\${3:-$SERVER_URL}
n=\$(( \$(cat "\$db.accounts" 2>/dev/null || echo 0) + 1 ))
echo "\$n" > "\$db.accounts"
[ "\$n" -gt 1 ] && "$BIN/notes-server" user delete "bench\$((n - 1))" --yes --db "\$db" >/dev/null
echo benchpassword | "$BIN/notes-server" user add "bench\$n" --password-stdin --db "\$db" >/dev/null
echo benchpassword | "$BIN/notes" login --server "\$url" --username "bench\$n" --password-stdin >/dev/null 2>&1
rm -rf "$work/ours"
cp -a "\$corpus" "$work/ours"
"$BIN/notes" init "$work/ours" --server "\$url" >/dev/null 2>&1
SH
chmod +x "$work/new-account"
# One warmup run of each command: the first gigabyte a process writes into /dev/shm on this VM
# costs up to twice the next one (fresh memory, first touched), and it fell on whichever command
# ran first against a fresh server or destination.
hf() { hyperfine --style basic --warmup 1 --runs "$runs" "$@" >&2; }
# peak CMD...: runs CMD under GNU time, appending the peak resident KiB to $work/peaks.NAME.
peak() {
    local name=$1
    shift
    echo "/usr/bin/time -f %M -a -o '$work/peaks.$name' $*"
}
max_kib() { sort -n "$work/peaks.$1" | tail -1; }

# Before each run the other command's copy is removed too (see the clone below for why).
hf --export-json "$work/images.json" \
    --prepare "rm -rf '$work/rsync-dest' && mkdir '$work/rsync-dest'" -n rsync "rsync -a '$work/images/' '$module'" \
    --prepare "rm -rf '$work/rsync-dest' && mkdir '$work/rsync-dest' && '$work/new-account' '$work/images'" -n notes "$(peak images "'$BIN/notes' sync '$work/ours'") >/dev/null"

hf --export-json "$work/big.json" \
    --prepare "rm -rf '$work/rsync-dest' && mkdir '$work/rsync-dest'" -n rsync "rsync -a '$work/big/' '$module'" \
    --prepare "rm -rf '$work/rsync-dest' && mkdir '$work/rsync-dest' && '$work/new-account' '$work/big'" -n notes "$(peak big-up "'$BIN/notes' sync '$work/ours'") >/dev/null"

# The daemon's copy, emptied before the notes upload, is what rsync clones from.
rsync -a "$work/big/" "$module"
cmp "$work/big/disk.img" "$work/rsync-dest/disk.img" || { echo "the rsync daemon's copy differs" >&2; exit 1; }
# Each clone starts with neither clone on the filesystem: on /dev/shm a clone's pages are new
# memory, which a virtual machine may pay for on first touch, so a command run while the other's
# gigabyte is still held would pay more for the same bytes.
hf --export-json "$work/clone.json" \
    --prepare "rm -rf '$work/rsync-clone' '$work/clone'" -n rsync "rsync -a '$module' '$work/rsync-clone/'" \
    --prepare "rm -rf '$work/rsync-clone' '$work/clone'" -n notes "$(peak big-clone "'$BIN/notes' clone '$SERVER_URL' '$work/clone'") >/dev/null"
cmp "$work/big/disk.img" "$work/clone/disk.img" || { echo "the clone differs from the original" >&2; exit 1; }

server_peak=$(awk '/VmHWM/ {print $2}' "/proc/$SERVER_PID/status")
echo "attachments: hyperfine medians of $runs runs; peak resident memory: client $(max_kib images) KiB (images)," \
     "$(max_kib big-up) KiB (big upload), $(max_kib big-clone) KiB (big clone); server $server_peak KiB over the bench"
report "upload $images images" "rsync -a to daemon" "$(median_seconds "$work/images.json" 0)" "$(median_seconds "$work/images.json" 1)" "≤ 1.5"
report "upload ${big_mib} MiB" "rsync -a to daemon" "$(median_seconds "$work/big.json" 0)" "$(median_seconds "$work/big.json" 1)" "≤ 1.5"
report "clone ${big_mib} MiB" "rsync -a from daemon" "$(median_seconds "$work/clone.json" 0)" "$(median_seconds "$work/clone.json" 1)" "≤ 1.5"
table_row "peak memory" "(client / server)" "-" "$(( $(max_kib big-up) / 1024 )) MiB / $(( server_peak / 1024 )) MiB" "-" "≤ 100 MiB above idle"

# The S3 rows: the same workloads against a second server whose contents are in a SeaweedFS
# bucket on loopback (its data on the same filesystem), beside the first server with its content
# directory, so the ratio is the object store's cost alone.
if [ "${S3:-1}" = "1" ]; then
    export AWS_ACCESS_KEY_ID=bench AWS_SECRET_ACCESS_KEY=bench-$RANDOM$RANDOM
    s3_endpoint=$("$ROOT/Tests/s3/seaweedfs" start "$work/weed" notes-bench)
    directory_url=$SERVER_URL
    start_notes_server "$work/db-s3.sqlite" --max-attachment-size 2G --content-store s3://notes-bench/bench --s3-endpoint "$s3_endpoint"
    S3_SERVER_PID=$SERVER_PID
    s3_url=$SERVER_URL
    hf --export-json "$work/s3-images.json" \
        --prepare "'$work/new-account' '$work/images' '$work/db.sqlite' '$directory_url'" -n directory "'$BIN/notes' sync '$work/ours' >/dev/null" \
        --prepare "'$work/new-account' '$work/images' '$work/db-s3.sqlite' '$s3_url'" -n s3 "$(peak s3-images "'$BIN/notes' sync '$work/ours'") >/dev/null"
    hf --export-json "$work/s3-big.json" \
        --prepare "'$work/new-account' '$work/big' '$work/db.sqlite' '$directory_url'" -n directory "'$BIN/notes' sync '$work/ours' >/dev/null" \
        --prepare "'$work/new-account' '$work/big' '$work/db-s3.sqlite' '$s3_url'" -n s3 "$(peak s3-big-up "'$BIN/notes' sync '$work/ours'") >/dev/null"
    # Each server's last account holds the big file: clone it from each (notes logs in per server URL).
    hf --export-json "$work/s3-clone.json" \
        --prepare "rm -rf '$work/clone'" -n directory "'$BIN/notes' clone '$directory_url' '$work/clone' >/dev/null" \
        --prepare "rm -rf '$work/clone'" -n s3 "$(peak s3-big-clone "'$BIN/notes' clone '$s3_url' '$work/clone'") >/dev/null"
    cmp "$work/big/disk.img" "$work/clone/disk.img" || { echo "the S3 clone differs from the original" >&2; exit 1; }
    s3_server_peak=$(awk '/VmHWM/ {print $2}' "/proc/$S3_SERVER_PID/status")
    echo "attachments on S3: server peak $s3_server_peak KiB over its runs"
    report "upload $images images, S3" "directory store" "$(median_seconds "$work/s3-images.json" 0)" "$(median_seconds "$work/s3-images.json" 1)" "≤ 1.5"
    report "upload ${big_mib} MiB, S3" "directory store" "$(median_seconds "$work/s3-big.json" 0)" "$(median_seconds "$work/s3-big.json" 1)" "≤ 1.5"
    report "clone ${big_mib} MiB, S3" "directory store" "$(median_seconds "$work/s3-clone.json" 0)" "$(median_seconds "$work/s3-clone.json" 1)" "≤ 1.5"
fi
