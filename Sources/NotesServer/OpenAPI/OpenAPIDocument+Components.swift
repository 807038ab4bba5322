import NotesCore

/// Shared parts of the OpenAPI document: security, parameters, headers and error answers.
extension OpenAPIDocument {
    static let securitySchemes: OpenAPIValue = [
        "bearerAuth": [
            "type": "http",
            "scheme": "bearer",
            "description": """
                An access token from `/v1/auth/login` (prefix `nat_`) or a personal access token (prefix `npt_`).
                """,
        ],
    ]

    static let parameters: OpenAPIValue = [
        "NoteId": parameter("id", in: .path,
            description: "The note's UUID (any case; answers use lowercase).",
            schema: ["type": "string", "format": "uuid"]
        ),
        "Rev": parameter("rev", in: .path,
            description: "A revision number of the note.",
            schema: ["type": "integer", "format": "int64", "minimum": 1]
        ),
        "TokenId": parameter("id", in: .path,
            description: "The personal token's public id.",
            schema: ["type": "string"]
        ),
        "IfMatch": parameter("If-Match", in: .header,
            description: """
                The revision the change is based on, as an ETag: `"12"` (a `W/` prefix is accepted). Required to \
                update or delete.
                """,
            schema: ["type": "string", "example": "\"12\""]
        ),
        "IfMatchDelete": parameter("If-Match", in: .header, required: true,
            description: """
                The revision being deleted, as an ETag: `"12"` (a `W/` prefix is accepted); without it the answer is \
                428.
                """,
            schema: ["type": "string", "example": "\"12\""]
        ),
        "IfNoneMatchCreate": parameter("If-None-Match", in: .header,
            description: """
                `*` to create: the note must not exist yet (a retried identical create answers 200). Send this or \
                `If-Match`, not both.
                """,
            schema: ["type": "string", "enum": ["*"]]
        ),
        "IfNoneMatchRead": parameter("If-None-Match", in: .header,
            description: "ETags the client already has (or `*`): answers 304 without a body when one matches.",
            schema: ["type": "string"]
        ),
        "ListLimit": parameter("limit", in: .query,
            description: "Notes per page, 1 to `max_page_size` (default 200).",
            schema: ["type": "integer", "minimum": 1, "default": 200]
        ),
        "After": parameter("after", in: .query,
            description: "The `next_cursor` of the previous page.",
            schema: ["type": "string"]
        ),
        "PathFilter": parameter("path", in: .query,
            description: "Only the live note with exactly this path (after NFC normalisation); no paging then.",
            schema: ["type": "string"]
        ),
        "Since": parameter("since", in: .query,
            description: "A `cursor` from an earlier answer; absent or `0` reads from the beginning.",
            schema: ["type": "string", "default": "0"]
        ),
        "ChangesLimit": parameter("limit", in: .query,
            description: "Changes per page, 1 to `max_page_size` (default 500).",
            schema: ["type": "integer", "minimum": 1, "default": 500]
        ),
        "Wait": parameter("wait", in: .query,
            description: """
                Seconds to hold the request when nothing changed after `since` (0, the default: answer at once). \
                Longer than the server's `max_wait_seconds` is shortened to it.
                """,
            schema: ["type": "integer", "minimum": 0, "maximum": 60, "default": 0]
        ),
        "Include": parameter("include", in: .query,
            description: "`content` adds each note's content to the feed.",
            schema: ["type": "string", "enum": ["content"]]
        ),
        "Omit": parameter("omit", in: .query,
            description: """
                `content` leaves the content out of the note of each applied write (the caller sent it); the \
                current note of a stale write (412) keeps its content, for merging.
                """,
            schema: ["type": "string", "enum": ["content"]]
        ),
        "Query": parameter("q", in: .query, required: true,
            description: """
                Words to find (at most 1000 bytes); a word ending in `*` matches as a prefix. Taken as plain words: \
                query syntax characters are searched for, never interpreted. `tag:NAME` keeps only the notes \
                carrying that tag, or one nested under it (`tag:project` finds `#project/notes`), in the default \
                flavour; with no other word, those notes, the most recently changed first, with empty snippets.
                """,
            schema: ["type": "string", "minLength": 1, "maxLength": 1000]
        ),
        "SearchLimit": parameter("limit", in: .query,
            description: "Results, 1 to 100 (default 20).",
            schema: ["type": "integer", "minimum": 1, "maximum": 100, "default": 20]
        ),
        "Flavour": parameter("flavour", in: .query,
            description: """
                The Markdown to read the note as: `default` (CommonMark, GitHub's extensions and what Obsidian users \
                write) or `commonmark` (pure CommonMark 0.30). Without it, the server's setting.
                """,
            schema: ["type": "string", "enum": ["default", "commonmark"]]
        ),
        "Standalone": parameter("standalone", in: .query,
            description: """
                `1` (or `true`, `yes`) for a complete HTML page instead of a fragment, titled with the note's \
                front matter `title`, else its first heading, else its file name without `.md`.
                """,
            schema: ["type": "string", "enum": ["1", "true", "yes"]]
        ),
    ]

    static let headers: OpenAPIValue = [
        "ETag": [
            "description": "The note's revision as a strong ETag, such as `\"12\"`.",
            "schema": ["type": "string"],
        ],
        "RetryAfter": ["description": "Seconds to wait before retrying.", "schema": ["type": "integer", "minimum": 0]],
        "WWWAuthenticate": [
            "description": """
                RFC 6750 challenge: `Bearer realm="notes"`, plus `error` and `error_description` when a token was \
                presented.
                """,
            "schema": ["type": "string"],
        ],
        "CacheControl": [
            "description": "`no-store`: answers carrying secrets must not be cached.",
            "schema": ["type": "string", "enum": ["no-store"]],
        ],
    ]

    static let responses: OpenAPIValue = [
        "BadRequest": errorAnswer(
            """
                The request is malformed: invalid JSON or UTF-8 (`invalid_json`), a bad id (`invalid_id`), path \
                (`invalid_path`), parameter (`invalid_parameter`), cursor (`invalid_cursor`) or precondition header \
                (`invalid_precondition`). On any path: a URL path that is not UTF-8 (`invalid_path`), a NUL character \
                in the query (`invalid_query`) or an unreadable `Content-Length` (`invalid_content_length`); on \
                signed-in paths, a malformed `Authorization` header (`invalid_request`, with `WWW-Authenticate`).
                """
        ),
        "Unauthorized": errorAnswer(
            "No usable bearer token (`unauthenticated`, `invalid_token`).",
            headers: ["WWW-Authenticate": header("WWWAuthenticate")]
        ),
        "Forbidden": errorAnswer(
            "`insufficient_scope`: a read-only token tried to write.",
            headers: ["WWW-Authenticate": header("WWWAuthenticate")]
        ),
        "NotFound": errorAnswer("No such note (or revision) for this user; other users' notes are never revealed."),
        "Conflict": errorAnswer(
            "`path_taken`: another live note has this path, compared after NFC normalisation and ignoring case."
        ),
        "PreconditionFailed": answer(
            """
                `precondition_failed`: the note is not at the revision sent (or already exists for a create); the \
                body carries the note as it is now, content included, so the client can merge.
                """,
            schema("StaleNote")
        ),
        "PayloadTooLarge": errorAnswer(
            """
                The body is over `max_request_bytes` (`payload_too_large`, refused before it is read), the note over \
                `max_note_bytes` (`note_too_large`) or the batch over `max_batch_operations` (`batch_too_large`).
                """
        ),
        "BodyTooLarge": errorAnswer(
            """
                `payload_too_large`: the request carries a body over `max_request_bytes` (over \
                `max_unauthenticated_request_bytes` on sign-in and refresh); refused before it is read.
                """
        ),
        "PreconditionRequired": errorAnswer(
            "`precondition_required`: a write without `If-None-Match: *` or `If-Match` would risk a lost update."
        ),
        "TooManyRequests": errorAnswer(
            "`too_many_requests`: slow down.",
            headers: ["Retry-After": header("RetryAfter")]
        ),
        "StorageUnavailable": errorAnswer(
            """
                The server's database cannot be written right now and nothing was saved: read-only or unreachable \
                storage, or a database file deleted or replaced while the server runs (`storage_unavailable`), or one \
                locked past the busy timeout (`storage_busy`); for attachment contents, an S3 content store that cannot \
                be reached, fails or is too slow (`content_store_unavailable`). Reads go on; retry after `Retry-After`.
                """,
            headers: ["Retry-After": header("RetryAfter")]
        ),
        "InsufficientStorage": errorAnswer(
            """
                `insufficient_storage`: the server's disk, or its database size limit (`--max-db-size`), has no room \
                for this change; nothing was saved. Reads go on, and writes work again once the operator frees space.
                """
        ),
        "Error": errorAnswer("Any other error, with the error body (see the general answers in the description)."),
    ]
}
