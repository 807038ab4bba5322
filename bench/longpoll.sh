#!/usr/bin/env bash
# Long poll: 2,000 changes requests held open at once (`wait=60`, shortened to 15 s by
# `--max-wait`), and meanwhile the server's resident memory (after every wait ended once and was
# polled again, as watchers do) and the latency of an ordinary authenticated GET /v1/notes/{id}.
# The same GET is measured on the same server before the waiters arrive, in the same run.
# Targets (docs/architecture.md, Performance targets): resident ≤ 64 MiB, GET p99 ≤ 5 ms while the 2,000 are held.
#
# How the 2,000 fit the server's caps: they come from 80 loopback addresses (127.0.1.1-80, 25
# each, under the default per-address cap of 32 held requests) for 20 users (100 each, so
# `--max-waiters-per-user 100`); `--max-connections 2700 --max-waiters 2000` make room in total.
# WAITERS=N holds fewer; NOTES_BIN=.build/debug skips the release build (to check the script only).
source "$(dirname "$0")/common.sh"
if [ -n "${NOTES_BIN:-}" ]; then BIN=$NOTES_BIN; else build_release; fi
work=$(mktemp -d)
waiters=${WAITERS:-2000}
users=20
# Clients ask for 60 s; the server's --max-wait shortens it so a run sees every wait end and the
# polls come again on new connections (the steady state), within a minute.
max_wait=${MAX_WAIT:-15}
cleanup() {
    stop_pid "${SERVER_PID:-}"
    rm -rf "$work"
}
trap cleanup EXIT

for index in $(seq 0 $users); do
    name=bench$index
    [ "$index" -eq 0 ] && name=reader
    echo "benchpassword" | "$BIN/notes-server" user add "$name" --password-stdin --db "$work/db.sqlite" >/dev/null
done
"$BIN/notes-server" serve --db "$work/db.sqlite" --listen 127.0.0.1:0 --max-connections 2700 --max-wait "$max_wait" \
    --max-waiters "$waiters" --max-waiters-per-user $(((waiters + users - 1) / users)) > "$work/db.sqlite.out" 2> "$work/db.sqlite.log" &
SERVER_PID=$!
for _ in $(seq 200); do grep -q listening "$work/db.sqlite.out" 2>/dev/null && break; sleep 0.05; done
SERVER_URL="http://$(grep -o '127.0.0.1:[0-9]*' "$work/db.sqlite.out" | head -1)"
echo "longpoll: server at $SERVER_URL, pid $SERVER_PID"

PYTHONPATH="$ROOT/bench" python3 - "$SERVER_URL" "$SERVER_PID" "$waiters" "$users" "$max_wait" <<'PY'
import asyncio, json, os, sys, threading, time, uuid
import benchhttp
from benchhttp import raise_file_limit, server_address
url, pid, waiters, users, max_wait = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
host, port = server_address(url)
raise_file_limit()

def rss_mib():
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024

def request(method, path, body=None, token=None, source="127.0.0.2", extra=None):
    return benchhttp.request(host, port, method, path, body, token, source, extra, timeout=90)

def login(name):
    _, data = request("POST", "/v1/auth/login", json.dumps({"username": name, "password": "benchpassword"}))
    return json.loads(data)["access_token"]

def latencies(path, count, token):
    return benchhttp.latencies(host, port, path, count, token)

reader = login("reader")
note = str(uuid.uuid4())
request("PUT", f"/v1/notes/{note}", json.dumps({"path": "a.md", "content": "Some text.\n" * 180}), reader,
        extra={"If-None-Match": "*"})
tokens = [login(f"bench{index}") for index in range(1, users + 1)]
idle_rss = rss_mib()
quiet = latencies(f"/v1/notes/{note}", 5000, reader)

# The waiters: from 80 addresses, each sending the long poll again when answered: on a new
# connection when the answer closed its own (a held answer does), after Retry-After when a cap
# refused it. `sent` holds when each one's request went out, `cycles` how many waits it completed.
early = [0]
sent = [None] * waiters
cycles = [0] * waiters
poll_wait = 60
async def waiter(index):
    token = tokens[index % users]
    source = f"127.0.1.{index % 80 + 1}"
    poll = (f"GET /v1/changes?since=0&wait={poll_wait} HTTP/1.1\r\nHost: {host}\r\n"
            f"Authorization: Bearer {token}\r\n\r\n").encode()
    connection = None
    while True:
        if connection is None:
            connection = await asyncio.open_connection(host, port, local_addr=(source, 0))
        reader_, writer = connection
        writer.write(poll)
        await writer.drain()
        sent[index] = time.monotonic()
        head = await reader_.readuntil(b"\r\n\r\n")
        fields = {line.split(b":", 1)[0].strip().lower(): line.split(b":", 1)[1].strip()
                  for line in head.split(b"\r\n")[1:] if b":" in line}
        await reader_.readexactly(int(fields[b"content-length"]))
        if time.monotonic() - sent[index] < max_wait - 2:
            early[0] += 1
        sent[index] = None
        cycles[index] += 1
        if fields.get(b"connection", b"").lower() == b"close":
            writer.close()
            connection = None
        if b"retry-after" in fields:
            await asyncio.sleep(int(fields[b"retry-after"]))

loop = asyncio.new_event_loop()
threading.Thread(target=loop.run_forever, daemon=True).start()
tasks = []  # the loop keeps only weak references to its tasks
async def start_all():
    for index in range(waiters):
        tasks.append(asyncio.ensure_future(waiter(index)))
        if index % 100 == 99:
            await asyncio.sleep(0.05)
asyncio.run_coroutine_threadsafe(start_all(), loop).result()

def all_held(min_cycles, within):
    """Every request out for 2 s without an answer (one the server did not hold is answered at
    once), each waiter having completed `min_cycles` waits."""
    start = time.monotonic()
    while True:
        now = time.monotonic()
        if all(at is not None and now - at > 2 and done >= min_cycles for at, done in zip(sent, cycles)):
            return now - start
        if now - start > within:
            sys.exit(f"longpoll: the {waiters} waiters were not all held after {within} s ({early[0]} answered early)")
        time.sleep(0.2)

first_in = all_held(0, 40)
first_rss = rss_mib()
# Steady state: every waiter has had a wait end and polls again on a new connection.
again_in = all_held(1, max_wait + 40)
held_rss = rss_mib()
loaded = latencies(f"/v1/notes/{note}", 5000, reader)
after_rss = rss_mib()
still = sum(1 for at in sent if at is not None)
print(f"longpoll: {waiters} held (all in {first_in:.1f} s after the last was sent; again {again_in:.1f} s later, after each "
      f"wait of {max_wait} s ended; {still} still held after the GETs; {early[0]} answered before their wait ended)")
print(f"longpoll: server resident idle {idle_rss:.1f} MiB; {waiters} held: first {first_rss:.1f} MiB, "
      f"after a full cycle {held_rss:.1f} MiB, after the GETs {after_rss:.1f} MiB (target ≤ 64 MiB)")
print(f"longpoll: GET note p50/p99 quiet {quiet[0]:.2f}/{quiet[1]:.2f} ms; with {waiters} held "
      f"{loaded[0]:.2f}/{loaded[1]:.2f} ms (target p99 ≤ 5 ms), 5,000 sequential requests each")
sys.stdout.flush()
os._exit(0)  # the held waiters go with the process, without asyncio's complaints
PY
echo "longpoll: server peak resident $(awk '/VmHWM/ {print $2 / 1024 " MiB"}' "/proc/$SERVER_PID/status")"
