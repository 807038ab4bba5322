#!/usr/bin/env bash
# Checks notes-server's /metrics with Prometheus's own tools: `promtool check metrics` on a live
# server's output, `promtool check rules` on contrib/prometheus/notes-alerts.yml, and a real
# Prometheus (Debian's, with its own temporary configuration and data on a loopback port) that
# scrapes the server and answers a query on the request counter. Every query of the Grafana
# dashboard (contrib/grafana/notes-server.json) must also evaluate without an error.
#
# Builds nothing: starts the already built debug notes-server with --metrics-listen on free
# loopback ports and a temporary database, and stops both programs and removes everything on
# every exit.
#
# Usage: Tests/metrics/run.sh   (after `swift build` and `scripts/install-deps --for-tests`; scripts/test runs it)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
server=$root/.build/debug/notes-server

[ -x "$server" ] || { echo "metrics: $server is missing; run swift build first" >&2; exit 1; }
for tool in promtool prometheus; do
    command -v "$tool" >/dev/null || { echo "metrics: $tool is missing; run scripts/install-deps --for-tests" >&2; exit 1; }
done

work=$(mktemp -d)
server_pid=""
prometheus_pid=""
cleanup() {
    for pid in "$prometheus_pid" "$server_pid"; do
        if [ -n "$pid" ]; then
            kill "$pid" 2>/dev/null || true
            wait "$pid" 2>/dev/null || true
        fi
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM  # through the EXIT trap

fail() {
    echo "metrics: FAILED: $*" >&2
    exit 1
}

free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# Waits up to 30 s for a line matching the sed expression in a log; prints the match.
await_line() {
    local log=$1 expression=$2 pid=$3 found=""
    for _ in $(seq 1 300); do
        found=$(sed -n "$expression" "$log" | head -n 1)
        [ -n "$found" ] && { echo "$found"; return 0; }
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    return 1
}

echo "metrics: rules"
promtool check rules contrib/prometheus/notes-alerts.yml >"$work/rules.log" 2>&1 || { cat "$work/rules.log" >&2; fail "promtool check rules"; }

db=$work/notes.sqlite
echo "correct horse battery" | "$server" user add alice --password-stdin --db "$db" >/dev/null
"$server" serve --db "$db" --listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
api=$(await_line "$work/server.out" 's/.*listening on \(http:\/\/127\.0\.0\.1:[0-9]*\).*/\1/p' "$server_pid") || fail "the server did not start: $(cat "$work/server.err")"
metrics=$(sed -n 's/^metrics at \(http:\/\/127\.0\.0\.1:[0-9]*\/metrics\)$/\1/p' "$work/server.out")
[ -n "$metrics" ] || fail "the server did not print its metrics address"

# Some traffic: requests on several routes and statuses, a failed sign-in, a signed-in read.
for _ in 1 2 3; do curl -fsS "$api/healthz" >/dev/null; done
curl -sS -o /dev/null "$api/no/such/path"
curl -sS -o /dev/null -H 'Content-Type: application/json' -d '{"username":"alice","password":"wrong password"}' "$api/v1/auth/login"
token=$(curl -fsS -H 'Content-Type: application/json' -d '{"username":"alice","password":"correct horse battery"}' "$api/v1/auth/login" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["access_token"])')
curl -fsS -o /dev/null -H "Authorization: Bearer $token" "$api/v1/notes"

echo "metrics: promtool check metrics"
curl -fsS "$metrics" >"$work/scrape.txt"
promtool check metrics <"$work/scrape.txt" >"$work/check.log" 2>&1 || { cat "$work/check.log" >&2; fail "promtool check metrics"; }
[ "$(curl -s -o /dev/null -w '%{http_code}' "$api/metrics")" = 404 ] || fail "/metrics answered on the public port"
if grep -q -e "$token" -e alice "$work/scrape.txt"; then fail "the metrics name a user or hold a token"; fi

echo "metrics: a real Prometheus scrapes the server"
prometheus_port=$(free_port)
target=${metrics#http://}
target=${target%/metrics}
cat >"$work/prometheus.yml" <<YAML
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files:
  - $root/contrib/prometheus/notes-alerts.yml
scrape_configs:
  - job_name: notes
    static_configs:
      - targets: ["$target"]
YAML
prometheus --config.file="$work/prometheus.yml" --storage.tsdb.path="$work/data" \
    --web.listen-address="127.0.0.1:$prometheus_port" >"$work/prometheus.log" 2>&1 &
prometheus_pid=$!

# The 3 /healthz requests above, as the server counted them, read back through PromQL.
query='notes_http_requests_total{route="/healthz",status="200"}'
value=""
for _ in $(seq 1 300); do
    value=$(curl -fsS -G --data-urlencode "query=$query" "http://127.0.0.1:$prometheus_port/api/v1/query" 2>/dev/null \
        | python3 -c 'import json, sys; r = json.load(sys.stdin)["data"]["result"]; print(r[0]["value"][1] if r else "")' 2>/dev/null) || true
    [ -n "$value" ] && break
    kill -0 "$prometheus_pid" 2>/dev/null || { cat "$work/prometheus.log" >&2; fail "prometheus exited"; }
    sleep 0.1
done
[ "$value" = 3 ] || { tail -n 20 "$work/prometheus.log" >&2; fail "Prometheus answered '$value' for $query, not 3"; }
up=$(curl -fsS -G --data-urlencode 'query=up{job="notes"}' "http://127.0.0.1:$prometheus_port/api/v1/query" \
    | python3 -c 'import json, sys; print(json.load(sys.stdin)["data"]["result"][0]["value"][1])')
[ "$up" = 1 ] || fail "the scrape target is not up"

echo "metrics: the dashboard's queries"
python3 - "$root/contrib/grafana/notes-server.json" "http://127.0.0.1:$prometheus_port" <<'PY'
import json, sys, urllib.parse, urllib.request
dashboard, base = sys.argv[1], sys.argv[2]
failed = 0
for panel in json.load(open(dashboard))["panels"]:
    for target in panel["targets"]:
        expr = target["expr"].replace("$__rate_interval", "1m")
        url = base + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
        try:
            answer = json.load(urllib.request.urlopen(url))
        except Exception as error:
            print(f"metrics: dashboard panel {panel['title']!r}: {expr}: {error}", file=sys.stderr)
            failed += 1
            continue
        if answer.get("status") != "success":
            print(f"metrics: dashboard panel {panel['title']!r}: {answer}", file=sys.stderr)
            failed += 1
sys.exit(1 if failed else 0)
PY
echo "metrics: passed"
