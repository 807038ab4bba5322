#!/usr/bin/env bash
# Installs nanoidp (PyPI), a real OpenID Connect provider for tests, into a venv under .build/
# and prints its executable (Tests/oidc/install-from-pypi.sh).
#
# nanoidp's ID tokens carry only `sub`: `preferred_username`, `email` and `email_verified` come
# from its userinfo endpoint, the provider shape the userinfo tests need. Its users sign in with
# a username and password on its own login form.
set -euo pipefail
exec "$(dirname "$0")/install-from-pypi.sh" nanoidp 3.4.0 nanoidp-venv nanoidp
