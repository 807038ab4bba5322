#!/usr/bin/env bash
# Installs the test identity provider (oidc-provider-mock from PyPI, an OpenID Connect provider
# for tests) into a venv under .build/ and prints its executable (Tests/oidc/install-from-pypi.sh).
#
# oidc-provider-mock issues RS256 ID tokens through the authorization code flow; the subject and
# claims are chosen by posting its authorize form, so a script can act as the browser. Version
# 0.3.4 is the newest that runs on Debian 12's Python 3.11.
set -euo pipefail
exec "$(dirname "$0")/install-from-pypi.sh" oidc-provider-mock 0.3.4 oidc-venv oidc-provider-mock
