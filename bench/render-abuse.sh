#!/usr/bin/env bash
# Hostile notes against the renderer: the 400 KB note of 100,000 `>`, long lines of `*` and `[`
# and 50,000 nested list items, timed with the `cmark` CLI (capped at CMARK_CAP seconds), then
# 4 such notes stored on the server and `GET /v1/notes/{id}/html` asked 8 times each at once
# (32 requests, none kept yet), while one client from another address times ordinary
# authenticated `GET /v1/notes/{id}` of a 2 KB note, side by side with the same GETs before.
# Targets: ordinary GET p99 < 50 ms meanwhile; each hostile answer within 2 s.
# BENCH_BIN=/other/.build/debug measures another build (a before/after in one session).
source "$(dirname "$0")/common.sh"
need_packages cmark
build_release
work=$(bench_workdir)
cleanup() {
    stop_pid "${SERVER_PID:-}"
    bench_stop_postgres
    rm -rf "$work"
}
trap cleanup EXIT

python3 - "$work/hostile.md" <<'PY'
import sys
note = '>' * 100000 + ' x\n' + '*' * 50000 + 'a' + '*' * 50000 + '\n' + '[' * 100000 + '\n' + '- ' * 50000 + 'x\n'
open(sys.argv[1], 'w').write(note)
PY
cap=${CMARK_CAP:-120}
start=$(date +%s.%N)
if timeout "$cap" cmark "$work/hostile.md" > /dev/null; then
    cmark_seconds=$(python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$start" "$(date +%s.%N)")
else
    cmark_seconds=">$cap"
fi
echo "render-abuse: cmark CLI on the 400 KB hostile note: $cmark_seconds s"

bench_database "$work"
echo "benchpassword" | "$BIN/notes-server" user add bench --password-stdin --db "$BENCH_DB" >/dev/null
start_notes_server "$BENCH_DB"
echo "render-abuse: server at $SERVER_URL$(bench_backend_label)"

PYTHONPATH="$ROOT/bench" python3 - "$SERVER_URL" "$work/hostile.md" "$cmark_seconds" <<'PY'
import json, os, sys, threading, time, uuid
import benchhttp
from benchhttp import raise_file_limit, server_address
url, hostile_path, cmark_seconds = sys.argv[1], sys.argv[2], sys.argv[3]
host, port = server_address(url)
raise_file_limit()
HOSTILE_DEADLINE = 2.0   # seconds, each hostile answer
GIVE_UP = 30.0           # a request that takes longer is counted as not answered

def table_row(*fields):
    """One row of the table bench/all.sh prints (see table_row in common.sh)."""
    if os.environ.get("BENCH_TABLE"):
        with open(os.environ["BENCH_TABLE"], "a", encoding="utf-8") as table:
            table.write("\t".join(fields) + "\n")

def request(method, path, body=None, token=None, source="127.0.0.3"):
    headers = {"If-None-Match": "*"} if method == "PUT" else None
    response, data = benchhttp.request(host, port, method, path, body, token, source, headers, timeout=GIVE_UP)
    return response.status, data

status, data = request("POST", "/v1/auth/login", json.dumps({"username": "bench", "password": "benchpassword"}))
token = json.loads(data)["access_token"]
ordinary = str(uuid.uuid4())
request("PUT", f"/v1/notes/{ordinary}", json.dumps({"path": "ordinary.md", "content": "Some text.\n" * 180}), token)
hostile_text = open(hostile_path).read()
hostile = []
for index in range(4):
    note = str(uuid.uuid4())
    status, _ = request("PUT", f"/v1/notes/{note}", json.dumps({"path": f"hostile-{index}.md", "content": f"{index}\n\n" + hostile_text}), token)
    assert status == 201, status
    hostile.append(note)

quiet = benchhttp.latencies(host, port, f"/v1/notes/{ordinary}", 2000, token)

# 32 hostile requests at once, each on its own connection from 127.0.0.3..; meanwhile the
# ordinary client (127.0.0.2, one kept-alive connection) GETs until they are all answered.
hostile_times = []
lock = threading.Lock()
go = threading.Event()
def ask(note, source):
    go.wait()
    start = time.perf_counter()
    try:
        status, body = request("GET", f"/v1/notes/{note}/html", token=token, source=source)
        answered = status == 200
    except OSError:
        answered = False
    with lock:
        hostile_times.append(time.perf_counter() - start if answered else float("inf"))
threads = [threading.Thread(target=ask, args=(note, f"127.0.0.{3 + (8 * i + j) % 8}"))
           for i, note in enumerate(hostile) for j in range(8)]
for thread in threads: thread.start()
import http.client
conn = http.client.HTTPConnection(host, port, timeout=GIVE_UP, source_address=("127.0.0.2", 0))
headers = {"Authorization": "Bearer " + token}
samples = []
go.set()
began = time.perf_counter()
while any(thread.is_alive() for thread in threads) or len(samples) < 500:
    start = time.perf_counter()
    try:
        conn.request("GET", f"/v1/notes/{ordinary}", headers=headers)
        conn.getresponse().read()
        samples.append((time.perf_counter() - start) * 1000)
    except OSError:
        samples.append(GIVE_UP * 1000)
        conn = http.client.HTTPConnection(host, port, timeout=GIVE_UP, source_address=("127.0.0.2", 0))
    if time.perf_counter() - began > GIVE_UP + 5: break
for thread in threads: thread.join(GIVE_UP)
samples.sort()
p50, p99 = samples[len(samples) // 2], samples[max(0, int(len(samples) * 0.99) - 1)]
answered = [t for t in hostile_times if t != float("inf")]
slowest = max(hostile_times) if hostile_times else float("inf")
within = sum(1 for t in hostile_times if t <= HOSTILE_DEADLINE)
slowest_text = f"{slowest:.2f} s" if slowest != float("inf") else f"not answered within {GIVE_UP:.0f} s"
print(f"render-abuse: ordinary GET quiet p50 {quiet[0]:.2f} ms p99 {quiet[1]:.2f} ms; during 4 hostile notes x 8 "
      f"p50 {p50:.2f} ms p99 {p99:.2f} ms over {len(samples)} GETs (target p99 < 50 ms)")
print(f"render-abuse: hostile GET /html: {len(answered)}/32 answered, {within}/32 within {HOSTILE_DEADLINE:.0f} s, "
      f"slowest {slowest_text} (target: all within 2 s); cmark CLI alone {cmark_seconds} s")
table_row("ordinary GET p99, 4 hostile notes x 8", "same, quiet", f"{quiet[1]:.2f} ms", f"{p99:.2f} ms", "-", "< 50 ms")
table_row("hostile GET /html, slowest of 32", "cmark CLI, one", f"{cmark_seconds} s", slowest_text, "-", "≤ 2 s")
PY
