#!/usr/bin/env bash
# Installs one pinned PyPI package that the OpenID Connect tests run as a provider into its own
# venv under .build/. Idempotent and quiet when that version is already there. Prints the
# package's executable on success; any failure to install is an exit 1 with the reason.
#
# Usage: Tests/oidc/install-from-pypi.sh PACKAGE VERSION VENV-NAME EXECUTABLE
set -euo pipefail
[ $# -eq 4 ] || { echo "usage: $0 PACKAGE VERSION VENV-NAME EXECUTABLE" >&2; exit 2; }
package=$1 version=$2
cd "$(dirname "$0")/../.."
venv=$PWD/.build/$3
executable=$venv/bin/$4

if [ "$("$venv/bin/pip" show "$package" 2>/dev/null | awk '/^Version:/ {print $2}')" != "$version" ]; then
    echo "oidc: installing $package $version into $venv" >&2
    python3 -m venv "$venv" >&2
    for attempt in 1 2 3; do
        "$venv/bin/pip" install --quiet --disable-pip-version-check --retries 5 --timeout 60 \
            "$package==$version" >&2 && break
        [ "$attempt" -eq 3 ] && { echo "oidc: could not install $package from PyPI" >&2; exit 1; }
        echo "oidc: install attempt $attempt failed; retrying" >&2
        sleep $((attempt * 5))
    done
fi
[ -x "$executable" ] || { echo "oidc: $executable is missing after the install" >&2; exit 1; }
echo "$executable"
