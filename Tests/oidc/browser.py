#!/usr/bin/env python3
"""Acts as the browser in a `notes login --web` test: follows the sign-in's redirects one by one,
submits oidc-provider-mock's authorize form, and records every hop as a JSON line on stdout.

Usage: browser.py URL [--sub SUBJECT] [--deny] [--forge-state] [--replay-callback]

  --deny             press "Deny" at the provider (consent refused)
  --forge-state      send the provider's answer back to Notes with another state (a forged
                     callback), then visit the client's loopback with a state it never sent
  --replay-callback  after signing in, visit the provider's answer (the callback URL) again
"""
import json
import secrets
import sys
import urllib.error
import urllib.parse
import urllib.request


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):
        return None


opener = urllib.request.build_opener(NoRedirect)


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


def with_query(url, **changes):
    parts = urllib.parse.urlsplit(url)
    query = dict(urllib.parse.parse_qsl(parts.query))
    query.update(changes)
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


def main():
    args = sys.argv[1:]
    url = args[0]
    sub = args[args.index("--sub") + 1] if "--sub" in args else "alice"
    status, location, body = visit(url)
    log(step="start", status=status, location=location, body=body)
    if status != 302:
        return 1
    loopback = urllib.parse.urlsplit(location).path == "/callback" and location.startswith("http://127.0.0.1:")
    if not loopback:
        # At the provider: show the form, then answer it.
        status, _, _ = visit(location)
        log(step="authorize-page", status=status)
        status, callback, body = visit(location, {"action": "deny"} if "--deny" in args else {"sub": sub})
        log(step="authorize", status=status, location=callback, body=body if status != 302 else "")
        if status != 302:
            return 1
        # oidc-provider-mock leaves `state` out of its access_denied redirect, which RFC 6749
        # §4.1.2.1 requires; put it back, as a conforming provider would have sent it.
        if "state=" not in urllib.parse.urlsplit(callback).query:
            sent = dict(urllib.parse.parse_qsl(urllib.parse.urlsplit(location).query))["state"]
            callback = with_query(callback, state=sent)
        if "--forge-state" in args:
            status, _, body = visit(with_query(callback, state=secrets.token_urlsafe(32)))
            log(step="forged-callback", status=status, body=body)
            client = urllib.parse.urlsplit(url)
            redirect_uri = dict(urllib.parse.parse_qsl(client.query))["redirect_uri"]
            status, _, body = visit(redirect_uri + "?" + urllib.parse.urlencode({"code": "nlc_forged", "state": "not-the-clients"}))
            log(step="forged-loopback", status=status, body=body)
            return 0
        status, location, body = visit(callback)
        log(step="callback", status=status, location=location, body=body)
        if status != 302:
            return 1
    status, _, body = visit(location)
    log(step="loopback", status=status, url=location, body=body)
    if "--replay-callback" in args and not loopback:
        status, _, body = visit(callback)
        log(step="replayed-callback", status=status, body=body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
