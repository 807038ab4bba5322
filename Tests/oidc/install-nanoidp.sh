#!/usr/bin/env bash
# Installs nanoidp (PyPI), a real OpenID Connect provider for tests, into a venv under .build/,
# as install-provider.sh installs oidc-provider-mock. Idempotent and quiet when it is already
# there. Prints nanoidp's executable on success.
#
# nanoidp's ID tokens carry only `sub`: `preferred_username`, `email` and `email_verified` come
# from its userinfo endpoint, the provider shape the userinfo tests need. Its users sign in with
# a username and password on its own login form.
set -euo pipefail
cd "$(dirname "$0")/../.."
version=3.4.0
venv=$PWD/.build/nanoidp-venv
provider=$venv/bin/nanoidp

if [ "$("$venv/bin/pip" show nanoidp 2>/dev/null | awk '/^Version:/ {print $2}')" != "$version" ]; then
    echo "oidc: installing nanoidp $version into $venv" >&2
    python3 -m venv "$venv" >&2
    for attempt in 1 2 3; do
        "$venv/bin/pip" install --quiet --disable-pip-version-check --retries 5 --timeout 60 \
            "nanoidp==$version" >&2 && break
        [ "$attempt" -eq 3 ] && { echo "oidc: could not install nanoidp from PyPI" >&2; exit 1; }
        echo "oidc: install attempt $attempt failed; retrying" >&2
        sleep $((attempt * 5))
    done
fi
[ -x "$provider" ] || { echo "oidc: $provider is missing after the install" >&2; exit 1; }
echo "$provider"
