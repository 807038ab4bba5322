#!/usr/bin/env bash
# `notes sync --watch`: two folders watching one account on loopback; EDITS edits
# saved in one are timed until they appear in the other (median and p95, quiet period
# included), then the idle cost of a watcher over NOTES notes (CPU share and memory over IDLE
# seconds, and the requests it sends meanwhile).
#   EDITS=50 NOTES=10000 IDLE=30 bench/watch-latency.sh
#   POLL=0.5 bench/watch-latency.sh    poll every 0.5 s when the server has no long poll
#                                      (the test hook NOTES_TEST_WATCH_POLL; default 15 s)
#   BIN=.build/debug bench/watch-latency.sh    use already-built binaries instead of a release build
# Targets: median <= 1.5 s, p95 <= 3 s; idle < 1 % of a core, <= 100 MiB.
source "$(dirname "$0")/common.sh"
if [ -n "${BIN:-}" ]; then BIN="$(cd "$BIN" && pwd)"; else build_release; fi
edits=${EDITS:-50}
notes=${NOTES:-10000}
idle=${IDLE:-30}
work=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do stop_pid "$pid"; done
    stop_pid "${SERVER_PID:-}"
    rm -rf "$work"
}
trap cleanup EXIT
export XDG_CONFIG_HOME="$work/config" HOME="$work/home"
[ -n "${POLL:-}" ] && export NOTES_TEST_WATCH_POLL="$POLL"
mkdir -p "$work/home"

start_notes_server "$work/db.sqlite"
echo benchpassword | "$BIN/notes-server" user add bench --password-stdin --db "$work/db.sqlite" >/dev/null
echo benchpassword | "$BIN/notes" login --server "$SERVER_URL" --username bench --password-stdin >/dev/null 2>&1
if curl -fsS "$SERVER_URL/v1/limits" | grep -q max_wait_seconds; then
    remote="long poll"
else
    remote="short polls every ${POLL:-15} s (this server has no long poll)"
fi

# watch DIR: starts a watcher on DIR and waits until it has synced once and is watching.
watch() {
    "$BIN/notes" sync --watch "$1" > "$1.out" 2> "$1.err" &
    pids+=($!)
    for _ in $(seq 1200); do grep -q "watching " "$1.out" 2>/dev/null && return 0; sleep 0.05; done
    echo "the watcher on $1 did not start: $(cat "$1.err")" >&2
    exit 1
}

"$BIN/notes" init "$work/a" --server "$SERVER_URL" --device a >/dev/null
"$BIN/notes" init "$work/b" --server "$SERVER_URL" --device b >/dev/null
watch "$work/a"
watch "$work/b"
echo "watch bench: $edits edits from a to b; remote changes by $remote" >&2
python3 - "$work/a" "$work/b" "$edits" <<'PY'
import os, statistics, sys, time
a, b, edits = sys.argv[1], sys.argv[2], int(sys.argv[3])
latencies = []
for i in range(edits):
    name = f"edit{i % 5}.md"
    text = f"# Edit {i}\n\nsaved at {time.time()}\n"
    start = time.monotonic()
    with open(os.path.join(a, name + ".tmp"), "w") as f:
        f.write(text)
    os.rename(os.path.join(a, name + ".tmp"), os.path.join(a, name))  # as editors save
    deadline = start + 120
    while time.monotonic() < deadline:
        try:
            if open(os.path.join(b, name)).read() == text:
                break
        except FileNotFoundError:
            pass
        time.sleep(0.01)
    else:
        sys.exit(f"edit {i} never arrived")
    latencies.append(time.monotonic() - start)
    time.sleep(0.3)
latencies.sort()
p95 = latencies[min(len(latencies) - 1, int(round(0.95 * len(latencies))) - 1)]
print(f"edit to arrival over {edits} edits: median {statistics.median(latencies):.2f} s, p95 {p95:.2f} s, "
      f"max {latencies[-1]:.2f} s (targets: median <= 1.5 s, p95 <= 3 s)")
PY
for pid in "${pids[@]}"; do stop_pid "$pid"; done
pids=()

# Idle: a watcher over NOTES notes that nobody touches.
make_corpus "$work/c" "$notes"
"$BIN/notes" init "$work/c" --server "$SERVER_URL" --device c >/dev/null
"$BIN/notes" sync "$work/c" >/dev/null
watch "$work/c"
pid=${pids[-1]}
sleep 2
requests_before=$(grep -c ' /v1/' "$work/db.sqlite.log" || true)
ticks_before=$(awk '{print $14 + $15}' "/proc/$pid/stat")
sleep "$idle"
ticks_after=$(awk '{print $14 + $15}' "/proc/$pid/stat")
requests_after=$(grep -c ' /v1/' "$work/db.sqlite.log" || true)
rss=$(awk '/VmRSS/ {print $2}' "/proc/$pid/status")
peak=$(awk '/VmHWM/ {print $2}' "/proc/$pid/status")
python3 - "$ticks_before" "$ticks_after" "$(getconf CLK_TCK)" "$idle" "$rss" "$peak" "$notes" \
    "$((requests_after - requests_before))" <<'PY'
import sys
before, after, hz, idle, rss, peak, notes, requests = (float(x) for x in sys.argv[1:])
share = (after - before) / hz / idle * 100
print(f"idle watcher over {int(notes)} notes for {int(idle)} s: {share:.2f} % of a core, "
      f"{rss / 1024:.0f} MiB resident (peak {peak / 1024:.0f} MiB), {int(requests)} requests "
      f"(targets: < 1 % of a core, <= 100 MiB)")
PY
