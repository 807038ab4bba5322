#!/usr/bin/env bash
# Growth of the sync rows with the note count: initial upload, clone, no-op sync and
# sync after 10 notes changed at 1,000 and 10,000 notes (GROWTH="1000 10000 100000" adds the
# 100,000 row), printing time per note, client CPU, the client's peak resident memory and the
# server's resident memory sampled during the upload (docs/architecture.md, Performance targets: server ≤ 64 MiB steady under the
# upload, client ≤ 200 MiB at 100,000 notes). `notes` alone: the peers are in bench/sync.sh.
#   GROWTH="1000 10000" RUNS=3 bench/growth.sh
source "$(dirname "$0")/common.sh"
build_release
sizes=${GROWTH:-1000 10000}
runs=${RUNS:-3}
work=$(bench_workdir)
cleanup() {
    stop_pid "${SERVER_PID:-}"
    stop_pid "${sampler:-}"
    rm -rf "$work"
}
trap cleanup EXIT
export XDG_CONFIG_HOME="$work/config" HOME="$work/home"
mkdir -p "$work/home"
start_notes_server "$work/db.sqlite"
echo "growth: server at $SERVER_URL, work in $work (runs of no-op and 10-changed: $runs, median)" >&2

# timed LABEL COMMAND...: runs COMMAND once under /usr/bin/time; sets WALL, CPU (user+sys) and RSS (MiB).
timed() {
    /usr/bin/time -f '%e %U %S %M' -o "$work/time" "$@" >/dev/null 2>"$work/stderr" || {
        cat "$work/stderr" >&2
        return 1
    }
    read -r WALL user sys rss < "$work/time"
    CPU=$(python3 -c "print(f'{$user + $sys:.2f}')")
    RSS=$(( rss / 1024 ))
}

# median_of RUNS PREPARE COMMAND...: the median wall time of RUNS runs (PREPARE run before each).
median_of() {
    local count=$1 prepare=$2
    shift 2
    local times=()
    for _ in $(seq "$count"); do
        eval "$prepare"
        timed "$@"
        times+=("$WALL")
    done
    WALL=$(printf '%s\n' "${times[@]}" | sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}')
}

edit10() {
    python3 - "$1" <<'PY'
import sys, time
for i in range(10):
    with open(f"{sys.argv[1]}/folder{i % 50:02d}/note{i:05d}.md", "a", encoding="utf-8") as f:
        f.write(f"edited {time.time_ns()}\n")
PY
}

per_note() { python3 -c "import sys; print(f'{float(sys.argv[1]) / int(sys.argv[2]) * 1e6:.1f} µs')" "$1" "$2"; }
line() { printf '%-8s %-11s %8s s  %10s/note  client cpu %6s s  client peak %4s MiB%s\n' "$@"; }

echo "growth: sync rows by note count (time per note; server RSS sampled every 0.1 s during the upload)"
for n in $sizes; do
    rm -rf "$work/corpus" "$work/clone"
    make_corpus "$work/corpus" "$n"
    echo benchpassword | "$BIN/notes-server" user add "grow$n" --password-stdin --db "$work/db.sqlite" >/dev/null
    echo benchpassword | "$BIN/notes" login --server "$SERVER_URL" --username "grow$n" --password-stdin >/dev/null 2>&1
    "$BIN/notes" init "$work/corpus" --server "$SERVER_URL" >/dev/null 2>&1
    # The server's resident memory while it takes the upload (its VmHWM also counts the
    # argon2id hash of each sign-in, which the hardening issue bounds).
    (peak=0; while :; do
        rss=$(awk '/VmRSS/ {print int($2 / 1024)}' "/proc/$SERVER_PID/status" 2>/dev/null || echo 0)
        [ "$rss" -gt "$peak" ] && peak=$rss && echo "$peak" > "$work/server-peak"
        sleep 0.1
    done) &
    sampler=$!
    timed "$BIN/notes" sync "$work/corpus"
    stop_pid "$sampler"
    sampler=
    line "$n" upload "$WALL" "$(per_note "$WALL" "$n")" "$CPU" "$RSS" "  server rss ≤ $(cat "$work/server-peak") MiB"
    table_row "upload, $n notes" "-" "-" "$WALL s ($(per_note "$WALL" "$n")/note)" "-" "-"
    wait_server_idle
    timed "$BIN/notes" clone "$SERVER_URL" "$work/clone"
    line "$n" clone "$WALL" "$(per_note "$WALL" "$n")" "$CPU" "$RSS" ""
    table_row "clone, $n notes" "-" "-" "$WALL s ($(per_note "$WALL" "$n")/note)" "-" "-"
    median_of "$runs" : "$BIN/notes" sync "$work/corpus"
    line "$n" no-op "$WALL" "$(per_note "$WALL" "$n")" "$CPU" "$RSS" ""
    table_row "no-op, $n notes" "-" "-" "$WALL s ($(per_note "$WALL" "$n")/note)" "-" "-"
    median_of "$runs" "edit10 '$work/corpus'" "$BIN/notes" sync "$work/corpus"
    line "$n" 10-changed "$WALL" "$(per_note "$WALL" "$n")" "$CPU" "$RSS" ""
    table_row "10 changed, $n notes" "-" "-" "$WALL s ($(per_note "$WALL" "$n")/note)" "-" "-"
done
echo "growth: server peak resident (VmHWM, sign-ins included) $(awk '/VmHWM/ {print $2 / 1024 " MiB"}' "/proc/$SERVER_PID/status")"
