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
# Chromium, chromedriver and the scenarios' own temporary folders go here, so they leave
# nothing in /tmp (Chromium alone left an org.chromium.Chromium.* folder per scenario).
mkdir "$work/tmp"
export TMPDIR=$work/tmp
server_pid=""
provider_pid=""
cleanup() {
    if [ -n "$provider_pid" ]; then
        # Killed outright, as the Swift tests do: uvicorn's graceful stop waits on idle keep-alives.
        kill -9 "$provider_pid" 2>/dev/null || true
        wait "$provider_pid" 2>/dev/null || true
    fi
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
echo "a third long secret" | "$server" user add carol --password-stdin --db "$db" >/dev/null
# Sign-in with an identity provider: the OIDC tests' provider (oidc-provider-mock) on a free
# loopback port, when it installs; otherwise that scenario is skipped. The server then needs a
# known port, since its --public-url is the provider's redirect target.
listen=127.0.0.1:0
oidc_args=()
if provider=$("$root/Tests/oidc/install-provider.sh" 2>"$work/oidc-install.log" | tail -n 1) && [ -x "$provider" ]; then
    NO_COLOR=1 PYTHONWARNINGS=ignore "$provider" --port 0 \
        --user-claims '{"sub": "dora-sub", "preferred_username": "dora", "email": "dora@example.org", "email_verified": true}' \
        >"$work/provider.log" 2>&1 &
    provider_pid=$!
    issuer=""
    for _ in $(seq 1 300); do
        issuer=$(sed -n 's/.*running on \(http:\/\/127\.0\.0\.1:[0-9]*\).*/\1/p' "$work/provider.log" | head -n 1)
        [ -n "$issuer" ] && break
        kill -0 "$provider_pid" 2>/dev/null || break
        sleep 0.1
    done
    if [ -n "$issuer" ]; then
        port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        echo "browser-test-secret" >"$work/client-secret"
        cat >"$work/providers.json" <<JSON
{"providers": [{"id": "mock", "issuer": "$issuer", "client_id": "notes-browser", "client_secret_file": "$work/client-secret",
  "display_name": "Mock ID", "allow_sign_up": true, "timeout_seconds": 20}]}
JSON
        listen=127.0.0.1:$port
        oidc_args=(--oidc-providers "$work/providers.json" --public-url "http://$listen")
        export NOTES_BROWSER_OIDC=mock
    else
        echo "browser: the test identity provider did not start; its scenario is skipped" >&2
    fi
else
    echo "browser: the test identity provider is not installed; its scenario is skipped" >&2
fi

"$server" serve --db "$db" --listen "$listen" "${oidc_args[@]}" >"$work/server.out" 2>"$work/server.log" &
server_pid=$!
source "$root/Tests/Scripts/server-address.sh"
base=$(server_address "$work/server.out" "$server_pid" "$work/server.log") || { echo "browser: the server did not start" >&2; exit 1; }

rm -rf "$shots" && mkdir -p "$shots"
status=0
"$venv/bin/python" "$root/Tests/browser/scenarios.py" --base "$base" --screenshots "$shots" "$@" || status=$?
if [ "$status" -ne 0 ]; then
    echo "browser: server log:" >&2
    tail -n 40 "$work/server.log" >&2
fi
exit "$status"
