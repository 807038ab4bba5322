#!/usr/bin/env python3
"""Acts as the browser for the web app's "Sign in with <provider>" button against nanoidp:
starts the sign-in at the Notes server, signs in on nanoidp's login form, follows the callback
back to Notes and opens the account page, recording every hop as a JSON line on stdout.

Usage: web-sign-in.py SERVER_URL PROVIDER_ID USERNAME PASSWORD

Cookies are kept as a browser keeps them (the sign-in's state cookie at Notes, nanoidp's login
transaction), and redirects are followed one by one so each is recorded.
"""
import http.cookiejar
import json
import re
import sys
import urllib.error
import urllib.parse
import urllib.request


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


opener = urllib.request.build_opener(NoRedirect, urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))


def log(**fields):
    print(json.dumps(fields), flush=True)


def visit(url, form=None):
    """One request without following redirects: (status, Location, body)."""
    data = urllib.parse.urlencode(form).encode() if form is not None else None
    try:
        with opener.open(urllib.request.Request(url, data=data), timeout=30) as response:
            return response.status, response.headers.get("Location"), response.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        return error.code, error.headers.get("Location"), error.read().decode("utf-8", "replace")


def main():
    server, provider, username, password = sys.argv[1:5]
    start = server + "/auth/oidc/start?" + urllib.parse.urlencode({"provider": provider, "next": "/account"})
    status, authorize, _ = visit(start)
    log(step="start", status=status, location=authorize)
    if status != 302:
        return 1
    status, _, body = visit(authorize)
    found = re.search(r'name="transaction_id" value="([^"]+)"', body)
    log(step="login-page", status=status, form=found is not None)
    if not found:
        return 1
    login = urllib.parse.urlunsplit(urllib.parse.urlsplit(authorize)._replace(query=""))
    status, callback, body = visit(login, {"transaction_id": found.group(1), "username": username, "password": password})
    log(step="login", status=status, location=callback, body=body if status != 302 else "")
    if status != 302:
        return 1
    status, location, _ = visit(callback)
    log(step="callback", status=status, location=location)
    if status not in (302, 303):
        return 1
    status, _, body = visit(urllib.parse.urljoin(server, location))
    log(step="landed", status=status, location=location, body=body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
