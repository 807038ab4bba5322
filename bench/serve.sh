#!/usr/bin/env bash
# Serving: authenticated GET /v1/notes/{id} (a 2 KB note, JSON) against nginx serving the same
# bytes as a static file, both under wrk on loopback with the same connections and duration.
# Target (docs/architecture.md, Performance targets): ≥ 0.8 × nginx's requests/s, p99 ≤ 1.5 × nginx's p99 in the same run.
source "$(dirname "$0")/common.sh"
need_packages wrk nginx-light
build_release
work=$(mktemp -d)
connections=${CONNECTIONS:-32}
duration=${DURATION:-5s}
cleanup() {
    stop_pid "${server_pid:-}"
    stop_nginx "$work"
    bench_stop_postgres
    rm -rf "$work"
}
trap cleanup EXIT

bench_database "$work"
database=$BENCH_DB
echo "benchpassword" | "$BIN/notes-server" user add bench --password-stdin --db "$database" >/dev/null
"$BIN/notes-server" serve --db "$database" --listen 127.0.0.1:0 "${BENCH_SERVER_FLAGS[@]}" > "$work/server.out" 2> "$work/server.log" &
server_pid=$!
for _ in $(seq 100); do grep -q listening "$work/server.out" && break; sleep 0.05; done
port=$(grep -o '127.0.0.1:[0-9]*' "$work/server.out" | cut -d: -f2)
token=$(curl -s -X POST "127.0.0.1:$port/v1/auth/login" -d '{"username":"bench","password":"benchpassword"}' \
    | python3 -c 'import json,sys; print(json.load(sys.stdin)["access_token"])')
id=$(python3 -c 'import uuid; print(uuid.uuid4())')
content=$(python3 -c 'print(("Some note text, *emphasis* and a [link](x.md).\n" * 44)[:2000])')
python3 -c 'import json,sys; print(json.dumps({"path": "bench.md", "content": sys.argv[1]}))' "$content" > "$work/body.json"
curl -s -o /dev/null -X PUT "127.0.0.1:$port/v1/notes/$id" -H "Authorization: Bearer $token" -H 'If-None-Match: *' --data-binary @"$work/body.json"
curl -s "127.0.0.1:$port/v1/notes/$id" -H "Authorization: Bearer $token" > "$work/note.json"

nginx_port=$(free_port)
mkdir -p "$work/www"
cp "$work/note.json" "$work/www/note.json"
# Run as root, nginx's workers drop to an unprivileged user, who must be able to read the file
# (mktemp makes the work directory private): otherwise every request is a 403.
chmod a+rx "$work" "$work/www"
chmod a+r "$work/www/note.json"
start_nginx "$work" "server { listen 127.0.0.1:$nginx_port; root $work/www; }"

run_wrk() { wrk -t2 -c"$connections" -d"$duration" --latency "$@"; }
run_wrk "http://127.0.0.1:$nginx_port/note.json" > "$work/nginx.wrk"
# Server CPU (user + system) over its wrk run, per request: steadier than the rates on a busy box.
server_cpu_ticks() { awk '{print $14 + $15}' "/proc/$server_pid/stat"; }
cpu_before=$(server_cpu_ticks)
run_wrk -H "Authorization: Bearer $token" "http://127.0.0.1:$port/v1/notes/$id" > "$work/notes.wrk"
cpu_after=$(server_cpu_ticks)
# A run that got refusals (429, 5xx) measured the wrong thing: say so and fail.
for run in nginx notes; do
    if grep -q 'Non-2xx' "$work/$run.wrk"; then
        echo "serve: $run answered $(awk '/Non-2xx/ {print $NF}' "$work/$run.wrk") requests with a non-2xx status; not a valid run" >&2
        exit 1
    fi
done
rps() { awk '/Requests\/sec/ {print $2}' "$1"; }
p99() { awk '/ 99%/ {print $2}' "$1"; }
# wrk's p99 ("850.00us", "4.15ms", "1.20s") in milliseconds.
p99_ms() { p99 "$1" | awk '/us$/ {print $1 / 1000; next} /ms$/ {print $1 + 0; next} /s$/ {print $1 * 1000}'; }
p99_ratio=$(python3 -c "print(f'{$(p99_ms "$work/notes.wrk") / $(p99_ms "$work/nginx.wrk"):.2f}')")
echo "serve: nginx $(rps "$work/nginx.wrk") req/s (p99 $(p99 "$work/nginx.wrk")); notes-server $(rps "$work/notes.wrk") req/s (p99 $(p99 "$work/notes.wrk"))"
requests=$(awk '/requests in/ {print $1}' "$work/notes.wrk")
echo "serve: notes-server CPU $(python3 -c "print(round(($cpu_after - $cpu_before) / $(getconf CLK_TCK) * 1e6 / $requests, 1))") µs a request (user + system, $requests requests)"
echo "serve: notes/nginx requests/s ratio $(ratio "$(rps "$work/notes.wrk")" "$(rps "$work/nginx.wrk")"), p99 ratio $p99_ratio (targets ≥ 0.8 and ≤ 1.5), $connections connections"
table_row "GET note, $connections conns$(bench_backend_label)" "nginx static" "$(rps "$work/nginx.wrk") req/s, p99 $(p99 "$work/nginx.wrk")" \
    "$(rps "$work/notes.wrk") req/s, p99 $(p99 "$work/notes.wrk")" "$(ratio "$(rps "$work/notes.wrk")" "$(rps "$work/nginx.wrk")") (req/s), $p99_ratio (p99)" \
    "≥ 0.8 (req/s), ≤ 1.5 × nginx's (p99)"
