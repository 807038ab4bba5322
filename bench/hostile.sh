#!/usr/bin/env bash
# Serving under hostile traffic (slow and idle connections, a heavy feed walk): latency for an ordinary client from
# another address (127.0.0.2) while 300 slow and 256 idle connections come from 127.0.0.1, and
# /healthz latency while a client walks the changes feed of 30 notes of 10 MB with content.
# Each row is compared with the same requests on the same server without the load, in the same run.
# Targets: p99 under the flood ≤ 2 × the quiet p99; /healthz p99 during the walk ≤ 50 ms.
source "$(dirname "$0")/common.sh"
build_release
work=$(mktemp -d)
cleanup() {
    stop_pid "${SERVER_PID:-}"
    rm -rf "$work"
}
trap cleanup EXIT

echo "benchpassword" | "$BIN/notes-server" user add bench --password-stdin --db "$work/db.sqlite" >/dev/null
start_notes_server "$work/db.sqlite"
echo "hostile: server at $SERVER_URL"

PYTHONPATH="$ROOT/bench" python3 - "$SERVER_URL" <<'PY'
import http.client, json, os, socket, statistics, sys, threading, time, uuid
import benchhttp
from benchhttp import raise_file_limit, server_address
url = sys.argv[1]

def table_row(*fields):
    """One row of the table bench/all.sh prints (see table_row in common.sh)."""
    if os.environ.get("BENCH_TABLE"):
        with open(os.environ["BENCH_TABLE"], "a", encoding="utf-8") as table:
            table.write("\t".join(fields) + "\n")
host, port = server_address(url)
raise_file_limit()

def request(method, path, body=None, token=None, source="127.0.0.2"):
    headers = {"If-None-Match": "*"} if method == "PUT" else None
    response, data = benchhttp.request(host, port, method, path, body, token, source, headers)
    return response.status, data

def latencies(path, count, token=None):
    return benchhttp.latencies(host, port, path, count, token)

status, data = request("POST", "/v1/auth/login", json.dumps({"username": "bench", "password": "benchpassword"}))
token = json.loads(data)["access_token"]
note = str(uuid.uuid4())
request("PUT", f"/v1/notes/{note}", json.dumps({"path": "a.md", "content": "Some text.\n" * 180}), token)

quiet = latencies(f"/v1/notes/{note}", 2000, token)

# The flood: 256 idle connections and 300 that send a header byte every second.
idle = [socket.create_connection((host, port)) for _ in range(256)]
slow = []
for _ in range(300):
    s = socket.create_connection((host, port))
    s.send(b"POST /v1/auth/login HTTP/1.1\r\nHost: t\r\n")
    slow.append(s)
stop = threading.Event()
def trickle():
    while not stop.is_set():
        for s in slow:
            try: s.send(b"x", socket.MSG_DONTWAIT)
            except OSError: pass
        time.sleep(1)
threading.Thread(target=trickle, daemon=True).start()
flooded = latencies(f"/v1/notes/{note}", 2000, token)
stop.set()
for s in idle + slow: s.close()
print(f"hostile: GET note from 127.0.0.2, quiet p50 {quiet[0]:.2f} ms p99 {quiet[1]:.2f} ms; "
      f"under 300 slow + 256 idle from 127.0.0.1 p50 {flooded[0]:.2f} ms p99 {flooded[1]:.2f} ms; "
      f"ratio {flooded[1] / quiet[1]:.2f} (target ≤ 2)")
table_row("GET p99 under a flood", "same, quiet", f"{quiet[1]:.2f} ms", f"{flooded[1]:.2f} ms", f"{flooded[1] / quiet[1]:.2f}", "≤ 2")

# 30 notes of 10 MB, then /healthz while another client walks the feed with content.
content = ("A line of a large note with \"quotes\".\n" * 270_000)[:10_000_000]
for index in range(30):
    request("PUT", f"/v1/notes/{uuid.uuid4()}", json.dumps({"path": f"big-{index}.md", "content": content}), token)
quiet_health = latencies("/healthz", 500)
walking = threading.Event()
pages = []
def walk():
    since = "0"
    while True:
        status, data = request("GET", f"/v1/changes?since={since}&include=content", token=token, source="127.0.0.3")
        page = json.loads(data)
        pages.append(len(data))
        since = page["cursor"]
        if not page["has_more"]: break
    walking.set()
walker = threading.Thread(target=walk)
walker.start()
samples = []
conn = http.client.HTTPConnection(host, port, timeout=30, source_address=("127.0.0.2", 0))
while not walking.is_set():
    start = time.perf_counter()
    conn.request("GET", "/healthz")
    conn.getresponse().read()
    samples.append((time.perf_counter() - start) * 1000)
walker.join()
samples.sort()
p99 = samples[int(len(samples) * 0.99) - 1] if samples else float("nan")
print(f"hostile: /healthz quiet p99 {quiet_health[1]:.2f} ms; during a walk of 30 × 10 MB "
      f"({len(pages)} pages, largest {max(pages) / 1_048_576:.1f} MiB) p99 {p99:.2f} ms over {len(samples)} requests "
      f"(target ≤ 50 ms)")
table_row("/healthz p99, feed walk", "same, quiet", f"{quiet_health[1]:.2f} ms", f"{p99:.2f} ms", "-", "≤ 50 ms")
PY
echo "hostile: server peak resident $(awk '/VmHWM/ {print $2 / 1024 " MiB"}' "/proc/$SERVER_PID/status")"
