#!/usr/bin/env bash
# Installs the test identity provider (oidc-provider-mock from PyPI, an OpenID Connect provider
# for tests) into a venv under .build/, like Tests/fuzz/schemathesis.sh installs schemathesis.
# Idempotent and quiet when it is already there. Prints the provider's executable on success.
#
# oidc-provider-mock issues RS256 ID tokens through the authorization code flow; the subject and
# claims are chosen by posting its authorize form, so a script can act as the browser. Version
# 0.3.4 is the newest that runs on Debian 12's Python 3.11.
set -euo pipefail
cd "$(dirname "$0")/../.."
version=0.3.4
venv=$PWD/.build/oidc-venv
provider=$venv/bin/oidc-provider-mock

if [ "$("$venv/bin/pip" show oidc-provider-mock 2>/dev/null | awk '/^Version:/ {print $2}')" != "$version" ]; then
    echo "oidc: installing oidc-provider-mock $version into $venv" >&2
    python3 -m venv "$venv" >&2
    for attempt in 1 2 3; do
        "$venv/bin/pip" install --quiet --disable-pip-version-check --retries 5 --timeout 60 \
            "oidc-provider-mock==$version" >&2 && break
        [ "$attempt" -eq 3 ] && { echo "oidc: could not install oidc-provider-mock from PyPI" >&2; exit 1; }
        echo "oidc: install attempt $attempt failed; retrying" >&2
        sleep $((attempt * 5))
    done
fi
[ -x "$provider" ] || { echo "oidc: $provider is missing after the install" >&2; exit 1; }
echo "$provider"
