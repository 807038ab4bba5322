import NotesCore

/// Sign-in through an identity provider (OpenID Connect) for the command-line client: the
/// browser's two stops on this server and the client's exchange of the one-time code; and the
/// device authorization grant (RFC 8628) for a machine without a browser.
extension OpenAPIDocument {
    static let signInPaths: OpenAPIValue = [
        "/v1/auth/providers": [
            "get": operation("listSignInProviders", tag: "auth", access: .anyone,
                summary: "The identity providers a user may sign in with (`notes-server serve --oidc-providers`).",
                responses: ["200": answer("The providers, possibly none.", schema("SignInProviders"))]
            ),
        ],
        "/auth/cli/start": [
            "get": operation("startCLISignIn", tag: "auth", access: .anyone, writes: true,
                summary: "Where `notes login --web` sends the browser: on to the identity provider.",
                description: """
                    Starts an OpenID Connect sign-in for a command-line client (RFC 8252): the client listens on a \
                    loopback port and sends the browser here with its redirect URI, its PKCE challenge and its state. \
                    The server records the sign-in with its own state, nonce and PKCE verifier (in the database, so \
                    any server sharing it can finish it) and redirects the browser to the provider, once its \
                    authorization endpoint has answered (a check of at most 3 s, its result held for 10 s). When the \
                    provider cannot be reached the browser is redirected to the client's loopback with `error=\
                    temporarily_unavailable`, so the waiting command learns it at once.
                    """,
                parameters: [
                    parameter("provider", in: .query, description: "The provider's id; may be left out when the server has one.",
                              schema: ["type": "string"]),
                    parameter("redirect_uri", in: .query, required: true,
                              description: "The client's loopback redirect: `http://127.0.0.1:PORT/...` or `http://[::1]:PORT/...`, no query.",
                              schema: ["type": "string"]),
                    parameter("code_challenge", in: .query, required: true,
                              description: "The client's PKCE S256 challenge (43 to 128 URL-safe characters).",
                              schema: ["type": "string"]),
                    parameter("code_challenge_method", in: .query, description: "Only `S256`.",
                              schema: ["type": "string", "enum": ["S256"]]),
                    parameter("state", in: .query, required: true,
                              description: "The client's state (1 to 256 URL-safe characters), returned to its loopback.",
                              schema: ["type": "string"]),
                ],
                responses: [
                    "302": ["description": "To the provider's authorization page, or to the client's loopback with an error.",
                            "headers": ["Location": locationHeader]],
                    "400": errorAnswer("""
                        `unknown_provider`, `invalid_redirect_uri` (not a loopback address with a port) or \
                        `invalid_request` (a malformed PKCE challenge, method or state).
                        """),
                ]
            ),
        ],
        "/auth/oidc/start": [
            "get": operation("startBrowserSignIn", tag: "auth", access: .anyone, writes: true,
                summary: "The web app's \"Sign in with <provider>\" button: on to the identity provider.",
                description: """
                    Starts the same OpenID Connect sign-in as `/auth/cli/start` (state, nonce and PKCE verifier kept \
                    in the database), marked as a browser's, and sets a short-lived `notes_oidc` cookie \
                    (`Path=/auth/oidc`, `HttpOnly`, `SameSite=Lax`) holding its state: the callback finishes it only \
                    in the browser that started it. The provider's authorization endpoint is checked first (at most \
                    3 s, the result held for 10 s): an unknown provider or one that cannot be reached sends the \
                    browser to the sign-in page with the reason (`/sign-in?failed=…`) instead of to a dead page.
                    """,
                parameters: [
                    parameter("provider", in: .query, required: true, description: "The provider's id.", schema: ["type": "string"]),
                    parameter("next", in: .query, description: "A path on this site to open once signed in (default `/`).",
                              schema: ["type": "string"]),
                ],
                responses: [
                    "302": ["description": "To the provider's authorization page, with the `notes_oidc` cookie set.",
                            "headers": ["Location": locationHeader]],
                    "303": ["description": "To the sign-in page, which says why the sign-in could not start.",
                            "headers": ["Location": locationHeader]],
                ]
            ),
        ],
        "/auth/oidc/callback": [
            "get": operation("finishSignIn", tag: "auth", access: .anyone, writes: true,
                summary: "Where the identity provider sends the browser back (the redirect URI registered with it).",
                description: """
                    Takes the sign-in recorded under `state` (once: it is deleted as it is read), exchanges the \
                    provider's `code` with the PKCE verifier, checks the ID token (signature against the provider's \
                    keys, issuer, audience, expiry, nonce), asks the provider's userinfo endpoint (with the access \
                    token) for `preferred_username`, `email` and `email_verified` when the ID token leaves them out \
                    (an answer about another `sub` fails the sign-in), finds the account linked to the identity (or creates one \
                    when the provider allows sign-up) and redirects the browser to the client's loopback with a \
                    one-time `code` and the client's `state`. Any failure after the state was found (consent denied, \
                    provider unreachable, a token that fails a check, no linked account) redirects to the loopback \
                    with `error` and `error_description` instead, and creates no session. A sign-in started by \
                    `/auth/oidc/start` (the web app) ends instead in a browser session, as a password sign-in does, \
                    and a redirect to its `next` path; or, on any failure (a state that is not this browser's, denied \
                    consent, a token that fails a check), in a redirect to `/sign-in?failed=…` with no session.
                    """,
                parameters: [
                    parameter("state", in: .query, description: "The state this server sent to the provider.", schema: ["type": "string"]),
                    parameter("code", in: .query, description: "The provider's authorization code.", schema: ["type": "string"]),
                    parameter("error", in: .query, description: "The provider's error, such as `access_denied`.", schema: ["type": "string"]),
                    parameter("error_description", in: .query, description: "The provider's explanation.", schema: ["type": "string"]),
                ],
                responses: [
                    "302": ["description": "To the client's loopback, with a one-time code or an error.",
                            "headers": ["Location": locationHeader]],
                    "303": ["description": "A browser sign-in: to its `next` path with the session cookie set, or to the sign-in page.",
                            "headers": ["Location": locationHeader]],
                    "400": errorAnswer("`invalid_state`: no state, or one of no live sign-in (forged, already used, or expired)."),
                ]
            ),
        ],
        "/v1/auth/device": [
            "post": operation("startDeviceSignIn", tag: "auth", access: .anyone, writes: true,
                summary: "Start a device sign-in (RFC 8628): a device code to poll with and a user code to approve.",
                description: """
                    For a machine without a browser (`notes login --device`). The person opens `verification_uri` \
                    (this server's `/device` page) wherever they are signed in to the web app, types `user_code` \
                    (eight letters, shown `XXXX-XXXX`; case, spaces and the dash do not matter) and approves or \
                    denies. Meanwhile the device polls `POST /v1/auth/token` with the device code grant, no more \
                    often than every `interval` seconds. Both codes expire after `expires_in` seconds; only their \
                    digests are stored. One address may hold 20 waiting codes at a time.
                    """,
                requestBody: ["required": false, "content": json(schema("DeviceAuthorizationRequest"))],
                responses: [
                    "200": secretAnswer("The codes.", schema("DeviceAuthorization")),
                    "400": errorAnswer("`invalid_json`: the body is not a device authorization request."),
                ]
            ),
        ],
        "/v1/auth/token": [
            "post": operation("exchangeSignInCode", tag: "auth", access: .anyone, writes: true,
                summary: "Exchange a one-time sign-in code, or an approved device code, for a session (access and refresh tokens).",
                description: """
                    Two grants. `authorization_code`: the code from a browser sign-in's loopback redirect, with the \
                    PKCE verifier of the challenge the client sent to `/auth/cli/start`. A code works once (any \
                    attempt spends it) and for a minute. `urn:ietf:params:oauth:grant-type:device_code` (RFC 8628 \
                    §3.4): one poll with the device code from `POST /v1/auth/device`; until the person decides, the \
                    answer is a 400 whose error `code` is RFC 8628's `error` value (`authorization_pending`, \
                    `slow_down` when polled faster than the interval, which then grows by 5 seconds, \
                    `access_denied`, `expired_token`), in this API's error shape. An approved device code gives one \
                    session; any later poll is `invalid_grant`. Either way the session is of the same kind as a \
                    password sign-in's.
                    """,
                requestBody: ["required": true, "content": json(["oneOf": [schema("TokenGrantRequest"), schema("DeviceTokenRequest")]])],
                responses: [
                    "200": secretAnswer("Signed in.", schema("TokenResponse")),
                    "400": errorAnswer("""
                        `invalid_grant`: the code is unknown, used, expired, or the verifier does not match (or the device \
                        code is unknown or already exchanged); `authorization_pending`, `slow_down`, `access_denied`, \
                        `expired_token`: a device code's state (RFC 8628 §3.5); `unsupported_grant_type`: `grant_type` is \
                        neither grant; `invalid_json`.
                        """),
                    "403": errorAnswer("`account_disabled`: an administrator disabled the account."),
                ]
            ),
        ],
    ]

    private static let locationHeader: OpenAPIValue = ["description": "Where the browser goes next.", "schema": ["type": "string"]]
}
