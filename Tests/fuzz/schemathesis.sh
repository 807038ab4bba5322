#!/usr/bin/env bash
# Fuzzes the live API with schemathesis, generated from the server's own OpenAPI document.
#
# Starts the built debug notes-server on a free port with a temporary database, signs a user in,
# seeds a few notes (so fuzzed ids can hit real ones), mints a personal write token for
# schemathesis, and checks every documented operation: no 5xx, and every answer has a documented
# status, content type and schema. The server must also log no internal error and survive.
# Deterministic (deterministic generation, a fresh cache each run) and bounded by examples per
# operation, not by time. Prints `fuzz: N passed, M failed`, counting API operations.
#
# Usage: Tests/fuzz/schemathesis.sh   (after `swift build`; scripts/test runs it)
# Env:   NOTES_FUZZ_EXAMPLES  examples per operation in the fuzzing phase (default 50).
# After a run, .build/fuzz-report/ holds schemathesis' log, its JUnit report and the server log.
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

schemathesis_version=4.32.5
venv=$root/.build/fuzz-venv
server=$root/.build/debug/notes-server
examples=${NOTES_FUZZ_EXAMPLES:-50}
report=$root/.build/fuzz-report

[ -x "$server" ] || { echo "fuzz: $server is missing; run swift build first" >&2; exit 1; }

# Pinned, so a new schemathesis release cannot change what a run generates.
if [ "$("$venv/bin/schemathesis" --version 2>/dev/null | awk '{print $NF}')" != "$schemathesis_version" ]; then
    echo "fuzz: installing schemathesis $schemathesis_version into $venv" >&2
    python3 -m venv "$venv"
    # A registry hiccup should not fail the suite: retry a few times before giving up.
    for attempt in 1 2 3; do
        "$venv/bin/pip" install --quiet --disable-pip-version-check --retries 5 --timeout 60 \
            "schemathesis==$schemathesis_version" && break
        [ "$attempt" -eq 3 ] && { echo "fuzz: could not install schemathesis from PyPI" >&2; exit 1; }
        echo "fuzz: install attempt $attempt failed; retrying" >&2
        sleep $((attempt * 5))
    done
fi

rm -rf "$report" && mkdir -p "$report"
work=$(mktemp -d "${TMPDIR:-/tmp}/notes-fuzz.XXXXXX")
server_pid=""
stop_server() {
    if [ -n "$server_pid" ] && kill -0 "$server_pid" 2>/dev/null; then
        kill -TERM "$server_pid"
        wait "$server_pid" || true
    fi
    server_pid=""
}
trap 'stop_server; rm -rf "$work"' EXIT

db="$work/notes.sqlite"
password="fuzz-password-$RANDOM$RANDOM"
printf '%s\n' "$password" | "$server" user add fuzz --password-stdin --db "$db" >/dev/null
# `--max-wait 1`: a fuzzed long poll (`wait`) with nothing new is held for one second, not sixty.
"$server" serve --db "$db" --listen 127.0.0.1:0 --max-wait 1 >"$work/stdout" 2>"$report/server.log" &
server_pid=$!

# The server prints its address once it listens: wait for that line, not for a fixed time.
base=""
for _ in $(seq 1 300); do
    base=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$work/stdout" 2>/dev/null | head -n 1 || true)
    [ -n "$base" ] && break
    kill -0 "$server_pid" 2>/dev/null || { echo "fuzz: notes-server exited early" >&2; cat "$report/server.log" >&2; exit 1; }
    sleep 0.1
done
[ -n "$base" ] || { echo "fuzz: notes-server did not start listening" >&2; exit 1; }

api() { curl -sf -H 'Content-Type: application/json' -H "Authorization: Bearer $access" "$@"; }
login=$(jq -n --arg password "$password" '{username: "fuzz", password: $password, device: "fuzz"}')
access=$(curl -sf -H 'Content-Type: application/json' -d "$login" "$base/v1/auth/login" | jq -er .access_token)
# A personal token, not the session: a fuzzed logout then answers not_a_session instead of
# signing the rest of the run out.
token=$(api -d '{"name": "fuzz", "scope": "write"}' "$base/v1/tokens" | jq -er .token)
for n in 1 2 3; do
    api -X PUT -H 'If-None-Match: *' -d "{\"path\": \"seed/note-$n.md\", \"content\": \"# Seed $n\\n\\nSome *words* to find.\\n\"}" \
        "$base/v1/notes/00000000-0000-4000-8000-00000000000$n" >/dev/null
done

# One schemathesis pass; its cache goes to the report folder (it writes it to the working directory).
fuzz() {
    local name=$1
    shift
    (cd "$report" && PYTHONPATH="$root/Tests/fuzz" SCHEMATHESIS_HOOKS=notes_hooks \
        timeout 300 "$venv/bin/schemathesis" run "$base/v1/openapi.json" \
        --url "$base" \
        --header "Authorization: Bearer $token" \
        --checks not_a_server_error,status_code_conformance,content_type_conformance,response_schema_conformance \
        --phases examples,coverage,fuzzing \
        --max-examples "$examples" \
        --generation-deterministic \
        --workers 1 \
        --request-timeout 10 \
        --suppress-health-check all \
        --no-color \
        --report junit --report-junit-path "$report/$name.xml" \
        "$@" >"$report/$name.log" 2>&1)
}

# Revoking tokens goes last, alone: it may revoke the run's own token, after which everything is 401.
set +e
fuzz main --exclude-operation-id revokeToken
main_status=$?
fuzz revoke --include-operation-id revokeToken
revoke_status=$?
set -e

alive=1
kill -0 "$server_pid" 2>/dev/null || alive=0
stop_server
internal=$(grep -c 'internal error' "$report/server.log" || true)

# Operations tested and failed, from the JUnit reports (one test case per API operation).
read -r total failed < <(python3 - "$report/main.xml" "$report/revoke.xml" <<'PY' 2>/dev/null || echo "0 0"
import sys, xml.etree.ElementTree as ET
cases = [case for path in sys.argv[1:] for case in ET.parse(path).iter("testcase")]
bad = [case for case in cases if case.find("failure") is not None or case.find("error") is not None]
print(len(cases), len(bad))
PY
)

if [ "$main_status" -ne 0 ] || [ "$revoke_status" -ne 0 ] || [ "$alive" -ne 1 ] || [ "$internal" -ne 0 ] || [ "$total" -eq 0 ]; then
    cat "$report/main.log" "$report/revoke.log" 2>/dev/null || true
    [ "$alive" -eq 1 ] || { echo "fuzz: notes-server died during the run; its last words:" >&2; tail -n 20 "$report/server.log" >&2; }
    [ "$internal" -eq 0 ] || { echo "fuzz: the server logged $internal internal errors:" >&2; grep 'internal error' "$report/server.log" >&2; }
    passed=$((total - failed))
    # A run that failed outside any operation (a dead server, a logged 500) still counts as one failure.
    [ "$failed" -gt 0 ] || failed=1
    echo "fuzz: $passed passed, $failed failed"
    exit 1
fi
grep -E '^ *[0-9]+ generated' "$report/main.log" "$report/revoke.log" || true
echo "fuzz: $total passed, 0 failed"
