# Shared helpers for the bench scripts: installs peers, builds release binaries, makes a corpus.
# Benches print ratios against a peer run side by side in the same run (these machines are noisy);
# they are never run by CI.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

need_packages() {
    local missing=()
    for package in "$@"; do
        dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed" || missing+=("$package")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    local sudo=""
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    $sudo apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
}

# build_release: builds the release binaries and sets BIN to them; BENCH_BIN=/some/.build/release
# measures binaries built elsewhere instead (another branch, for a before/after in one session).
build_release() {
    if [ -n "${BENCH_BIN:-}" ]; then
        BIN=$BENCH_BIN
        return 0
    fi
    "$ROOT/scripts/install-deps"
    # As scripts/install builds them: the two programs only (the test support target needs the
    # test frameworks), the Swift runtime and Foundation linked in.
    (cd "$ROOT" && swift build -c release --static-swift-stdlib --product notes-server >&2 \
        && swift build -c release --static-swift-stdlib --product notes >&2)
    BIN="$ROOT/.build/release"
}

# start_nginx DIR SERVERS: runs nginx (one worker, no access log) with SERVERS (its server
# blocks) inside the http block; the config, pid and error log are in DIR. nginx opens its
# listening sockets before it returns. stop_nginx DIR stops it (safe when it never started).
start_nginx() {
    local dir=$1 servers=$2
    cat > "$dir/nginx.conf" <<CONF
worker_processes 1;
pid $dir/nginx.pid;
error_log $dir/nginx-error.log;
events { worker_connections 1024; }
http {
    access_log off;
    $servers
}
CONF
    nginx -c "$dir/nginx.conf" -p "$dir"
}

stop_nginx() {
    [ -f "$1/nginx.pid" ] && kill "$(cat "$1/nginx.pid")" 2>/dev/null || true
}

free_port() {
    python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'
}

# make_corpus DIR COUNT: COUNT notes of about 2 KB in 50 folders, cut from the CommonMark spec.
make_corpus() {
    python3 - "$1" "$2" "$ROOT/../shared/commonmark/spec.txt" <<'PY'
import os, sys
out, count, spec = sys.argv[1], int(sys.argv[2]), sys.argv[3]
text = open(spec, encoding="utf-8").read() if os.path.exists(spec) else "# Note\n\nSome *text* and a [link](x.md).\n" * 400
for i in range(count):
    start = (i * 1777) % max(1, len(text) - 2100)
    body = f"# Note {i}\n\n" + text[start:start + 2000] + "\n"
    folder = os.path.join(out, f"folder{i % 50:02d}")
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, f"note{i:05d}.md"), "w", encoding="utf-8") as f:
        f.write(body)
PY
}

# sched_pipe: the machine's pace now, as `perf bench sched pipe` measures it (µs per round trip
# of two processes over a pipe, 20,000 of them); where perf cannot run, the same ping-pong in
# Python (a slower figure, comparable only with itself).
sched_pipe() {
    local figure
    figure=$(perf bench sched pipe -l 20000 2>/dev/null | awk '/usecs\/op/ { print $1 }') || true
    if [ -z "$figure" ]; then
        figure=$(python3 - <<'PY'
import os, time
loops = 20000
a_read, a_write = os.pipe()
b_read, b_write = os.pipe()
if os.fork() == 0:
    for _ in range(loops):
        os.read(a_read, 1)
        os.write(b_write, b"x")
    os._exit(0)
start = time.perf_counter()
for _ in range(loops):
    os.write(a_write, b"x")
    os.read(b_read, 1)
os.wait()
print(f"{(time.perf_counter() - start) / loops * 1e6:.3f} (python)")
PY
)
    fi
    echo "$figure"
}

ratio() {
    python3 -c "import sys; a, b = float(sys.argv[1]), float(sys.argv[2]); print(f'{a / b:.2f}' if b else 'n/a')" "$1" "$2"
}

# The per-account request rate limit (default 6,000 a minute) would answer most of a load
# generator's requests with 429 and make a bench measure refusals: benches lift it.
BENCH_SERVER_FLAGS=(--requests-per-minute 1000000000)

# start_notes_server DB [FLAG...]: runs a release notes-server on a free loopback port with the
# database DB (created if missing) and BENCH_SERVER_FLAGS; sets SERVER_URL and SERVER_PID. The
# caller's EXIT trap should stop it.
start_notes_server() {
    local db=$1
    shift
    # Its output beside a SQLite file, or for a PostgreSQL URL in the bench's cluster folder,
    # which bench_stop_postgres removes with the cluster.
    local files=$db
    case $db in postgres*) files="${BENCH_POSTGRES_DIR:?bench_database starts the cluster}/notes-server.$RANDOM$RANDOM" ;; esac
    "$BIN/notes-server" serve --db "$db" --listen 127.0.0.1:0 "${BENCH_SERVER_FLAGS[@]}" "$@" > "$files.out" 2> "$files.log" &
    SERVER_PID=$!
    for _ in $(seq 200); do grep -q listening "$files.out" 2>/dev/null && break; sleep 0.05; done
    SERVER_URL="http://$(grep -o '127.0.0.1:[0-9]*' "$files.out" | head -1)"
}

# wait_server_idle: returns once the server (and PostgreSQL's processes, on that backend) used
# no more than a tick of CPU in half a second, or after 60 s. Work the server does after it
# answered (the search index trails a burst of writes by about 2 s) then ends before the next
# workload is timed, so each row times its own workload; the upload row's note says what that
# trailing work costs.
wait_server_idle() {
    local last now
    busy_ticks() { cat "/proc/${SERVER_PID:?}/stat" $(pgrep -x postgres | sed 's|.*|/proc/&/stat|') 2>/dev/null \
        | awk '{ sub(/^.*\) /, ""); total += $12 + $13 } END { print total + 0 }'; }
    last=$(busy_ticks)
    for _ in $(seq 120); do
        sleep 0.5
        now=$(busy_ticks)
        [ "$now" -le $((last + 1)) ] && return 0
        last=$now
    done
}

# stop_pid PID: SIGTERM, then SIGKILL if it is still there after 2 s (notes-server does not always
# see a SIGTERM; a bench must not leave servers behind).
stop_pid() {
    [ -n "${1:-}" ] || return 0
    kill "$1" 2>/dev/null || return 0
    for _ in $(seq 20); do kill -0 "$1" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL "$1" 2>/dev/null || true
}

# median_seconds FILE INDEX: the median time of the INDEX-th command of a hyperfine JSON export.
median_seconds() {
    python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['results'][int(sys.argv[2])]['median'])" "$1" "$2"
}

# report NAME PEER_NAME PEER_SECONDS OURS_SECONDS TARGET: one line with both times and the ratio
# (notes / peer), also kept as a table row for bench/all.sh.
report() {
    local ratio_value
    ratio_value=$(ratio "$4" "$3")
    printf '%-10s %-22s peer %7.3fs  notes %7.3fs  ratio %5s  (target %s)\n' \
        "$1" "$2" "$3" "$4" "$ratio_value" "$5"
    table_row "$1" "$2" "$(printf '%.3f s' "$3")" "$(printf '%.3f s' "$4")" "$ratio_value" "$5"
}

# table_row WORKLOAD PEER PEER_FIGURE NOTES_FIGURE RATIO TARGET: appends one row to the table
# bench/all.sh prints, when it asked for one (BENCH_TABLE names the file); otherwise nothing.
table_row() {
    [ -n "${BENCH_TABLE:-}" ] || return 0
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >> "$BENCH_TABLE"
}

# bench_database DIR: sets BENCH_DB, the --db a bench's server uses (call it outside $(...), so
# the cluster it may start is remembered). SQLite (the default): DIR/db.sqlite.
# BENCH_BACKEND=postgres: a new database in a PostgreSQL cluster the bench starts once, beside DIR
# on the same filesystem (/dev/shm), durable like SQLite's FULL sync (fsync and synchronous_commit
# on); bench_stop_postgres, from the bench's EXIT trap, stops and removes it.
bench_database() {
    if [ "${BENCH_BACKEND:-sqlite}" != postgres ]; then
        BENCH_DB="$1/db.sqlite"
        return 0
    fi
    if [ -z "${BENCH_POSTGRES_DIR:-}" ]; then
        BENCH_POSTGRES_DIR=$(TMPDIR=$(dirname "$1") "$ROOT/scripts/postgres-test-cluster" start --durable)
    fi
    local name="bench_$RANDOM$RANDOM" bindir
    bindir=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
    local as_owner=()
    [ "$(id -u)" -eq 0 ] && as_owner=(runuser -u postgres --)
    "${as_owner[@]}" "$bindir/createdb" -h "$BENCH_POSTGRES_DIR" -U postgres "$name"
    BENCH_DB="postgresql://postgres@/$name?host=$BENCH_POSTGRES_DIR"
}

# bench_stop_postgres: stops the cluster bench_database started, if any.
bench_stop_postgres() {
    [ -n "${BENCH_POSTGRES_DIR:-}" ] && "$ROOT/scripts/postgres-test-cluster" stop "$BENCH_POSTGRES_DIR" || true
}

# bench_backend_label: the backend, as the table's workload names carry it.
bench_backend_label() {
    [ "${BENCH_BACKEND:-sqlite}" = postgres ] && echo " (PostgreSQL)" || echo ""
}

# bench_workdir: a new scratch directory on one filesystem for the corpus, the peers'
# destinations and the server's database, so no side is favoured by its disk. /dev/shm when
# there is one (BENCH_DIR=/some/disk/path measures a disk instead).
bench_workdir() {
    local base=${BENCH_DIR:-}
    if [ -z "$base" ]; then
        base=/tmp
        [ -d /dev/shm ] && [ -w /dev/shm ] && base=/dev/shm
    fi
    mktemp -d "$base/notes-bench.XXXXXX"
}

# start_rsync_daemon WORK: an rsync daemon on loopback, with its own config in WORK and one
# writable module, WORK/rsync-dest; sets module to its URL. The caller's EXIT trap stops it
# (its pid is in WORK/rsyncd.pid).
start_rsync_daemon() {
    local work=$1 rsync_port
    rsync_port=$(free_port)
    cat > "$work/rsyncd.conf" <<CONF
pid file = $work/rsyncd.pid
use chroot = no
uid = $(id -un)
gid = $(id -gn)
[bench]
    path = $work/rsync-dest
    read only = false
CONF
    rsync --daemon --config="$work/rsyncd.conf" --address=127.0.0.1 --port="$rsync_port"
    for _ in $(seq 100); do [ -f "$work/rsyncd.pid" ] && break; sleep 0.05; done
    module="rsync://127.0.0.1:$rsync_port/bench/"
}

# sync_bench_setup: what bench/sync.sh and bench/spaces.sh share. Installs their peers (rsync,
# git, hyperfine; unison when it can, setting have_unison), builds the release binaries, reads
# NOTES and RUNS into notes and runs, makes the work folder (removed on exit with the server,
# the rsync daemon and any PostgreSQL the bench started), points HOME, XDG_CONFIG_HOME (where
# `notes` keeps its sign-in) and UNISON (its archives) inside it, and writes the corpus of
# $notes notes to WORK/corpus.
sync_bench_setup() {
    need_packages rsync hyperfine git
    have_unison=1
    need_packages unison 2>/dev/null || have_unison=0
    command -v unison >/dev/null || have_unison=0
    build_release
    notes=${NOTES:-10000}
    runs=${RUNS:-5}
    work=$(bench_workdir)
    trap sync_bench_cleanup EXIT
    export XDG_CONFIG_HOME="$work/config" UNISON="$work/unison-archives" HOME="$work/home"
    mkdir -p "$work/home" "$work/rsync-dest"
    git config --global user.email bench@example.invalid
    git config --global user.name bench
    git config --global init.defaultBranch main
    make_corpus "$work/corpus" "$notes"
}

sync_bench_cleanup() {
    stop_pid "${SERVER_PID:-}"
    [ -f "$work/rsyncd.pid" ] && stop_pid "$(cat "$work/rsyncd.pid")"
    bench_stop_postgres
    rm -rf "$work"
}

# time_noop_and_changed: the no-op and 10-changed rows, `notes sync WORK/ours` against the peers
# make_sync_peers set up (rsync to the daemon at $module, git, unison when have_unison=1), as
# hyperfine JSON in WORK/noop.json and WORK/changed.json (the peers first, notes third). Ten
# notes changed: each run appends a line to the same ten notes in each replica first.
time_noop_and_changed() {
    local noop changed
    noop=(-n rsync "rsync -a '$work/corpus/' '$module'"
          -n git "cd '$work/git' && git add -A && git push -q origin main"
          -n notes "'$BIN/notes' sync '$work/ours' >/dev/null")
    [ "$have_unison" = 1 ] && noop+=(-n unison "$unison_cmd")
    hyperfine --style basic --runs "$runs" --export-json "$work/noop.json" --warmup 1 "${noop[@]}" >&2
    changed=(--prepare "$(edit "$work/corpus")" -n rsync "rsync -a '$work/corpus/' '$module'"
             --prepare "$(edit "$work/git")" -n git "cd '$work/git' && git add -A && git commit -qm edit && git push -q origin main"
             --prepare "$(edit "$work/ours")" -n notes "'$BIN/notes' sync '$work/ours' >/dev/null")
    [ "$have_unison" = 1 ] && changed+=(--prepare "$(edit "$work/unison-a")" -n unison "$unison_cmd")
    hyperfine --style basic --runs "$runs" --export-json "$work/changed.json" "${changed[@]}" >&2
}

# make_sync_peers WORK: the peers' replicas of WORK/corpus: a git work tree pushing to a bare
# repo and, with have_unison=1, a unison pair; sets unison_cmd. Writes WORK/edit10, which
# appends a line to the same ten notes of a replica; `edit REPLICA` prints that command.
make_sync_peers() {
    local work=$1
    cp -a "$work/corpus" "$work/git"
    git init -q --bare "$work/git-remote.git"
    (cd "$work/git" && git init -q && git add -A && git commit -qm initial && git remote add origin "$work/git-remote.git" && git push -q origin main)
    if [ "$have_unison" = 1 ]; then
        cp -a "$work/corpus" "$work/unison-a"
        mkdir -p "$work/unison-b"
        unison "$work/unison-a" "$work/unison-b" -batch -auto -silent >/dev/null 2>&1
    fi
    unison_cmd="unison '$work/unison-a' '$work/unison-b' -batch -auto -silent"
    cat > "$work/edit10" <<'PY'
import sys, time
for i in range(10):
    with open(f"{sys.argv[1]}/folder{i % 50:02d}/note{i:05d}.md", "a", encoding="utf-8") as f:
        f.write(f"edited {time.time_ns()}\n")
PY
    EDIT10="$work/edit10"
}

edit() { echo "python3 '$EDIT10' '$1'"; }
