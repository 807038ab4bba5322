import NotesCore

/// The OpenAPI 3.0.3 description of the v1 API, served at `/v1/openapi.json`.
///
/// Written as Swift values in a few parts (paths by area, shared components, schemas) with the
/// repeated parts built by the helpers in `OpenAPIDocument+Building.swift`: an operation states
/// its access and whether it writes, and gets the general answers that implies. Serialised once.
/// Tests keep it true: every routed endpoint must be documented and every documented one routed,
/// the text must be valid JSON and valid OpenAPI, and live answers must match the schemas, which
/// mirror the Codable wire types in `NotesCore/Wire` (snake_case keys).
enum OpenAPIDocument {
    /// The complete document as JSON text.
    static let json: String = document.jsonText

    /// The complete document.
    static let document: OpenAPIValue = .merged(root, [
        "paths": .merged(metaAndAuthPaths, notesPaths, syncPaths, historyPaths, publicationPaths, signInPaths, attachmentPaths,
                         spacePaths, inSpaces(.merged(notesPaths, syncPaths, historyPaths, publicationPaths, attachmentPaths))),
        "components": [
            "securitySchemes": securitySchemes,
            "parameters": .merged(parameters, attachmentParameters, spaceParameters),
            "headers": headers,
            "responses": responses,
            "schemas": schemas,
        ],
    ])

    private static let root: OpenAPIValue = [
        "openapi": "3.0.3",
        "info": [
            "title": "Notes API",
            "version": "1",
            "description": """
                A self-hosted Markdown note service. JSON in and out (`application/json; charset=utf-8`) unless \
                stated; keys are snake_case. Every error is `{"error": {"code": "snake_case_code", "message": "human \
                sentence"}}` with the matching status. General answers on every path: `400` for a URL path that is \
                not UTF-8 (`invalid_path`), a NUL character in the query (`invalid_query`) or an unreadable \
                `Content-Length` (`invalid_content_length`), `404 not_found` for a path with no endpoint, `405 \
                method_not_allowed` with `Allow` for a method the path does not accept (HEAD is accepted wherever GET \
                is, without a body), `413 payload_too_large` for a request body over `max_request_bytes` (refused \
                before it is read; a body is read only for an existing route, and for one that needs a token only \
                after the token in the headers was checked, so a refusal such as `401` comes before the body is \
                sent), `414 too_many_query_parameters` for a URL with more than 256 query parameters, `400 \
                invalid_transfer_encoding` or `501 not_implemented` for a `Transfer-Encoding` other than chunked, \
                `431 request_header_fields_too_large` for header fields over 16 KiB in all, `503 server_busy` with \
                `Retry-After` when the bodies being received use up the server's memory budget, `429 too_many_requests` with `Retry-After` when a client address sends more than \
                `requests_per_minute`, and a bare `500 internal_error` that never carries internal detail. Every \
                answer carries `X-Request-Id`, the id of its line in the server log, and `X-Content-Type-Options: \
                nosniff`. A few refusals come from the HTTP library itself, before the server sees the request, as \
                HTML rather than the JSON error: `431` for headers too large for the per-connection memory (64 KiB, \
                well above the JSON `431`'s limit); a request line it \
                cannot parse closes the connection without an answer, as does a connection that has not sent its \
                request in full by its deadline. Bearer tokens: `Authorization: Bearer <token>`; a 401 always carries \
                `WWW-Authenticate: Bearer realm="notes"` (with `error="invalid_token"` and an `error_description` \
                when a token was presented); a malformed `Authorization` header gets `400 invalid_request`; a \
                read-only token that tries to write (or to manage tokens) gets `403 insufficient_scope`. Each \
                operation lists every status it can answer. Notes have client-chosen UUIDs (so a retried create is \
                idempotent), paths that are relative, `/`-separated, NFC-normalised, unique per user ignoring case, \
                and end in `.md`, and a per-user revision `rev` that grows with every change; `ETag` is the quoted \
                `rev`. The same entries are served as plain files over WebDAV (RFC 4918, classes 1 and 2) at \
                `/dav/<space>/` (the account's own space is `/dav/personal/`, a shared one `/dav/<name>/`, or \
                `/dav/<owner>~<name>/` when two the account can read share a name), signed in with HTTP Basic and a \
                personal access token as the password; that protocol is not described here: see the README's \
                "WebDAV" section.
                """,
        ],
        "servers": [["url": "/", "description": "This server"]],
        "security": [["bearerAuth": []]],
        "tags": [
            ["name": "meta", "description": "Liveness, limits and this document; no sign-in needed."],
            ["name": "auth", "description": "Sign-in sessions with rotating refresh tokens."],
            ["name": "tokens", "description": "Personal access tokens for scripts."],
            ["name": "notes", "description": "Notes, their rendered HTML and their history."],
            ["name": "sync", "description": "The changes feed and batched writes that sync is built on."],
            ["name": "search", "description": "Full-text search."],
            ["name": "publications", "description": "Published notes: read-only pages anyone with the link can open."],
            ["name": "attachments", "description": "Attachment contents: uploads, downloads, what the server lacks."],
            ["name": "spaces", "description": "Spaces shared between accounts, their members and roles; each space's notes under `/v1/spaces/{space}`."],
        ],
    ]
}
