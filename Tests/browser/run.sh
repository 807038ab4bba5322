#!/usr/bin/env bash
# Drives the web app in a real browser: Debian's headless Chromium through Selenium (from PyPI,
# in a venv under .build/, pointed at /usr/bin/chromedriver so nothing is downloaded).
#
# Builds nothing: starts the already built debug notes-server on a free loopback port with a
# temporary database and two users, runs Tests/browser/scenarios.py against it, then stops the
# server and removes the database. Each scenario saves a screenshot to .build/browser-screenshots/.
#
# Usage: Tests/browser/run.sh [SCENARIO...]   (after `swift build`; scripts/test runs it)
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD

selenium_version=4.50.0
venv=$root/.build/browser-venv
server=$root/.build/debug/notes-server
shots=$root/.build/browser-screenshots

[ -x "$server" ] || { echo "browser: $server is missing; run swift build first" >&2; exit 1; }
for tool in /usr/bin/chromium /usr/bin/chromedriver; do
    [ -x "$tool" ] || { echo "browser: $tool is missing; run scripts/install-deps --for-tests" >&2; exit 1; }
done

# Pinned, so a new Selenium release cannot change how the scenarios run.
if [ "$("$venv/bin/python" -c 'import selenium; print(selenium.__version__)' 2>/dev/null)" != "$selenium_version" ]; then
    echo "browser: installing selenium $selenium_version into $venv" >&2
    python3 -m venv "$venv"
    for attempt in 1 2 3; do
        "$venv/bin/pip" install --quiet --disable-pip-version-check --retries 5 --timeout 60 \
            "selenium==$selenium_version" && break
        [ "$attempt" -eq 3 ] && { echo "browser: could not install selenium from PyPI" >&2; exit 1; }
        sleep $((attempt * 5))
    done
fi

work=$(mktemp -d)
server_pid=""
cleanup() {
    if [ -n "$server_pid" ]; then
        kill "$server_pid" 2>/dev/null || true
        wait "$server_pid" 2>/dev/null || true
    fi
    rm -rf "$work"
}
trap cleanup EXIT

db=$work/notes.sqlite
echo "correct horse battery" | "$server" user add alice --password-stdin --db "$db" >/dev/null
echo "another long secret" | "$server" user add bob --password-stdin --db "$db" >/dev/null
"$server" serve --db "$db" --listen 127.0.0.1:0 >"$work/server.out" 2>"$work/server.log" &
server_pid=$!
base=""
for _ in $(seq 1 100); do
    base=$(sed -n 's/.*listening on \(http:\/\/[^ ]*\).*/\1/p' "$work/server.out" | head -1)
    [ -n "$base" ] && break
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/server.log" >&2; exit 1; }
    sleep 0.1
done
[ -n "$base" ] || { echo "browser: the server did not start" >&2; exit 1; }

rm -rf "$shots" && mkdir -p "$shots"
status=0
"$venv/bin/python" "$root/Tests/browser/scenarios.py" --base "$base" --screenshots "$shots" "$@" || status=$?
if [ "$status" -ne 0 ]; then
    echo "browser: server log:" >&2
    tail -n 40 "$work/server.log" >&2
fi
exit "$status"
