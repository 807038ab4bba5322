import NotesCore

/// The meta, sign-in and token paths of the OpenAPI document.
extension OpenAPIDocument {
    static let metaAndAuthPaths: OpenAPIValue = [
        "/": [
            "get": operation("home", tag: "meta", access: .anyone,
                summary: "A small HTML page naming the product and linking to this document.",
                responses: [
                    "200": ["description": "The page.", "content": ["text/html": ["schema": ["type": "string"]]]],
                ]
            ),
        ],
        "/healthz": [
            "get": operation("health", tag: "meta", access: .anyone,
                summary: "Liveness and version.",
                responses: ["200": answer("The server is up.", schema("Health"))]
            ),
        ],
        "/livez": [
            "get": operation("live", tag: "meta", access: .anyone,
                summary: "Liveness: the process serves requests; reads neither the database nor the content store.",
                responses: ["200": answer("The server is live.", schema("Probe"))]
            ),
        ],
        "/readyz": [
            "get": operation("ready", tag: "meta", access: .anyone,
                summary: "Readiness: the database can be read and the content store reached.",
                responses: [
                    "200": answer("The server is ready.", schema("Probe")),
                    "503": errorAnswer("`not_ready`: the database or the content store cannot be reached; retry after `Retry-After`.",
                                       headers: ["Retry-After": header("RetryAfter")]),
                ]
            ),
        ],
        "/v1/limits": [
            "get": operation("getLimits", tag: "meta", access: .anyone,
                summary: "The limits the server enforces, so clients can split work to fit.",
                responses: ["200": answer("The limits.", schema("ServerLimits"))]
            ),
        ],
        "/v1/openapi.json": [
            "get": operation("getOpenAPI", tag: "meta", access: .anyone,
                summary: "This document.",
                responses: ["200": answer("The OpenAPI 3.0.3 document.", ["type": "object"])]
            ),
        ],
        "/v1/auth/login": [
            "post": operation("login", tag: "auth", access: .anyone, writes: true,
                summary: "Sign in: a new session with an access and a refresh token.",
                description: """
                    Unknown users and wrong passwords get the same answer after the same work; only the right \
                    password to a disabled account gets `403 account_disabled`. With `replaces_refresh_token`, a \
                    successful sign-in also ends the session that token belongs to, when it is the same user's. \
                    Guessing is throttled without locking the owner out: per account and client address, 10 attempts \
                    per 15 minutes (`--login-attempts`, `--login-window`), then that address waits; per account from \
                    any address, past 20 attempts each must come a delay after the previous one, doubling from 1 s to \
                    at most 30 s; per address across accounts, 50 per window (`--login-attempts-per-address`). \
                    `notes-server user unlock NAME` forgets an account's counted attempts at once.
                    """,
                requestBody: ["required": true, "content": json(schema("LoginRequest"))],
                responses: [
                    "200": secretAnswer("Signed in.", schema("TokenResponse")),
                    "401": errorAnswer(
                        "`invalid_credentials`: the username or password is wrong.",
                        headers: ["WWW-Authenticate": header("WWWAuthenticate")]
                    ),
                    "403": errorAnswer(
                        "`account_disabled`: the password is right but an administrator disabled the account."
                    ),
                    "429": errorAnswer(
                        """
                            `too_many_requests`: too many sign-in attempts for this account from this address, from \
                            this address, or on this account from anywhere too soon after the previous one (at most \
                            30 s), or too many requests of any kind from this address; wait `Retry-After` seconds \
                            before trying again.
                            """,
                        headers: ["Retry-After": header("RetryAfter")]
                    ),
                    "503": errorAnswer(
                        """
                            `busy`: too many sign-ins are being checked at once; `shutting_down`: the server is \
                            draining for shutdown; `storage_unavailable`: the database cannot be written (see \
                            `StorageUnavailable`). Retry after `Retry-After`.
                            """,
                        headers: ["Retry-After": header("RetryAfter")]
                    ),
                ]
            ),
        ],
        "/v1/auth/refresh": [
            "post": operation("refresh", tag: "auth", access: .anyone, writes: true,
                summary: "Rotate: a new access token and a new refresh token; the old refresh token is spent.",
                description: """
                    Presenting a spent refresh token (beyond a short grace for the immediately previous one, \
                    `--refresh-grace`) revokes the whole session. Within the grace, the previous token gets the very \
                    answer its rotation gave (the same access and refresh token, `expires_in` counting down), however \
                    many times and on whichever server sharing the database, so a session never forks.
                    """,
                requestBody: ["required": true, "content": json(schema("RefreshRequest"))],
                responses: [
                    "200": secretAnswer("New tokens.", schema("TokenResponse")),
                    "401": errorAnswer(
                        """
                            `invalid_grant`: the refresh token is unknown, malformed, spent, expired, its session \
                            revoked or its account disabled; sign in again.
                            """,
                        headers: [
                            "WWW-Authenticate": header("WWWAuthenticate"),
                            "Cache-Control": header("CacheControl"),
                        ]
                    ),
                ]
            ),
        ],
        "/v1/auth/logout": [
            "post": operation("logout", tag: "auth", access: .signedIn, writes: true,
                summary: "Sign out: revoke the caller's session, its refresh token and its access tokens.",
                responses: [
                    "204": answer("Signed out."),
                    "400": errorAnswer(
                        """
                            `not_a_session`: the caller signed with a personal token, which is revoked with `DELETE \
                            /v1/tokens/{id}` instead; or any malformed request (see `BadRequest`), such as a \
                            malformed `Authorization` header (`invalid_request`).
                            """
                    ),
                ]
            ),
        ],
        "/v1/me": [
            "get": operation("me", tag: "auth", access: .signedIn,
                summary: "The signed-in user.",
                responses: ["200": answer("The user.", schema("User"))]
            ),
        ],
        "/v1/tokens": [
            "get": operation("listTokens", tag: "tokens", access: .writeScope,
                summary: "The caller's personal access tokens, never their secrets.",
                responses: ["200": answer("The tokens.", schema("PersonalTokenList"))]
            ),
            "post": operation("createToken", tag: "tokens", access: .writeScope, writes: true,
                summary: "Create a personal access token; its secret is shown in this answer only.",
                description: """
                    Signed in with a session, any scope and lifetime may be asked for. Called with a personal token, \
                    the new token may not do more than that token (scope) nor live longer (expiry): such a request is \
                    refused with 403 `exceeds_creator`, never silently shortened.
                    """,
                requestBody: ["required": true, "content": json(schema("CreateTokenRequest"))],
                responses: [
                    "201": secretAnswer("Created; `token` holds the secret.", schema("PersonalToken")),
                    "403": errorAnswer(
                        """
                            `insufficient_scope`: a read-only token cannot manage tokens. `exceeds_creator`: the \
                            caller is a personal token, and the new token would live longer than it (no `expires_in`, \
                            or one past the caller's expiry) or do more; a token made with a personal token never \
                            outlives or outranks it.
                            """,
                        headers: ["WWW-Authenticate": header("WWWAuthenticate")]
                    ),
                    "409": errorAnswer(
                        """
                            `too_many_tokens`: the account has the most live personal tokens it may have; revoke one \
                            first.
                            """
                    ),
                ]
            ),
        ],
        "/v1/tokens/{id}": [
            "parameters": [parameter("TokenId")],
            "delete": operation("revokeToken", tag: "tokens", access: .writeScope, writes: true,
                summary: "Revoke a personal access token.",
                responses: [
                    "204": answer("Revoked."),
                    "404": errorAnswer(
                        """
                            `token_not_found`: the caller has no live personal token with this id (another user's \
                            counts as none).
                            """
                    ),
                ]
            ),
        ],
    ]
}
