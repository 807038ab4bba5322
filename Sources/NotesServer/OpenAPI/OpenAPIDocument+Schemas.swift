/// The schemas of the OpenAPI document: one per Codable wire type in `NotesCore/Wire`.
///
/// Optional Swift properties are not `required` and are `nullable`: answers omit them when
/// absent, requests may omit them or send `null`.
extension OpenAPIDocument {
    static let schemas: OpenAPIValue = [
        "Error": ["type": "object", "required": ["error"], "properties": ["error": schema("ErrorDetail")]],
        "ErrorDetail": [
            "type": "object",
            "required": ["code", "message"],
            "properties": [
                "code": [
                    "type": "string",
                    "description": "Stable snake_case code to branch on.",
                    "example": "precondition_failed",
                ],
                "message": ["type": "string", "description": "One human sentence; never a secret or internal detail."],
            ],
        ],
        "StaleNote": [
            "type": "object",
            "required": ["error"],
            "description": "A 412: the error and the note as it is now.",
            "properties": ["error": schema("ErrorDetail"), "note": ["allOf": [schema("Note")], "nullable": true]],
        ],
        "Health": [
            "type": "object",
            "required": ["status", "version"],
            "properties": ["status": ["type": "string", "enum": ["ok"]], "version": ["type": "string"]],
        ],
        "ServerLimits": [
            "type": "object",
            "required": [
                "max_note_bytes",
                "max_request_bytes",
                "max_batch_operations",
                "max_page_size",
                "requests_per_minute",
            ],
            "properties": [
                "max_note_bytes": ["type": "integer", "description": "Largest note content, in UTF-8 bytes."],
                "max_request_bytes": ["type": "integer", "description": "Largest request body, in bytes."],
                "max_batch_operations": ["type": "integer"],
                "max_page_size": [
                    "type": "integer",
                    "description": "Largest `limit` of the list and changes endpoints.",
                ],
                "requests_per_minute": ["type": "integer"],
                "max_page_bytes": [
                    "type": "integer",
                    "description": """
                        Most bytes in a changes page carrying content; a larger note comes alone on its page.
                        """,
                ],
                "max_unauthenticated_request_bytes": [
                    "type": "integer",
                    "description": "Largest body accepted without a bearer token (sign-in, refresh).",
                ],
                "max_wait_seconds": [
                    "type": "integer",
                    "description": "Longest `wait` a changes request is held for; absent on servers without the long poll.",
                ],
                "max_waiters_per_user": ["type": "integer", "description": "Changes requests one user may have held at once."],
                "max_waiters": ["type": "integer", "description": "Changes requests the server holds at once in total."],
                "max_attachment_bytes": [
                    "type": "integer",
                    "description": "Largest attachment (`--max-attachment-size`); larger uploads answer 413 before any byte is stored.",
                ],
                "upload_chunk_bytes": ["type": "integer", "description": "Size of every upload chunk but the last."],
                "quota_bytes": [
                    "type": "integer",
                    "description": "Attachment bytes each user may store (`--quota`); absent: no quota.",
                ],
                "max_content_batch_bytes": [
                    "type": "integer",
                    "description": "Largest body of `POST /v1/content` (several small contents in one request); absent: no such endpoint.",
                ],
            ],
        ],
        "LoginRequest": [
            "type": "object",
            "required": ["username", "password"],
            "properties": [
                "username": ["type": "string"],
                "password": ["type": "string", "format": "password"],
                "device": [
                    "type": "string",
                    "nullable": true,
                    "description": """
                        A name for the session, such as the host name; each revision written through it records this \
                        name (see Revision.device).
                        """,
                ],
                "replaces_refresh_token": [
                    "type": "string",
                    "nullable": true,
                    "description": """
                        The refresh token (current or spent) of the session this sign-in replaces, such as the one \
                        this device stored for the account. After a successful sign-in that session is ended, so a \
                        device keeps one session. A token that is unknown, malformed or another user's is ignored, \
                        and the answer is the same.
                        """,
                ],
            ],
        ],
        "RefreshRequest": [
            "type": "object",
            "required": ["refresh_token"],
            "properties": ["refresh_token": ["type": "string"]],
        ],
        "TokenResponse": [
            "type": "object",
            "required": ["access_token", "token_type", "expires_in", "user"],
            "properties": [
                "access_token": ["type": "string"],
                "token_type": ["type": "string", "enum": ["Bearer"]],
                "expires_in": ["type": "integer", "description": "Seconds until the access token expires."],
                "refresh_token": [
                    "type": "string",
                    "nullable": true,
                    "description": "Spent by its next use: each refresh returns a new one.",
                ],
                "user": schema("User"),
            ],
        ],
        "User": [
            "type": "object",
            "required": ["id", "username", "created_at"],
            "properties": [
                "id": ["type": "integer", "format": "int64"],
                "username": ["type": "string"],
                "created_at": ["type": "string", "format": "date-time"],
            ],
        ],
        "TokenScope": ["type": "string", "enum": ["read", "write"]],
        "CreateTokenRequest": [
            "type": "object",
            "required": ["name", "scope"],
            "properties": [
                "name": [
                    "type": "string",
                    "minLength": 1,
                    "maxLength": 100,
                    "description": "1 to 100 characters, not blank, without control or format characters.",
                ],
                "scope": schema("TokenScope"),
                "expires_in": [
                    "type": "integer",
                    "nullable": true,
                    "minimum": 1,
                    "maximum": 315360000,
                    "description": """
                        Lifetime in seconds, at most ten years; absent for a token that lasts until revoked. A \
                        personal token creating a token must ask for no longer than its own remaining lifetime.
                        """,
                ],
            ],
        ],
        "PersonalToken": [
            "type": "object",
            "required": ["id", "name", "scope", "created_at"],
            "properties": [
                "id": ["type": "string"],
                "name": ["type": "string"],
                "scope": schema("TokenScope"),
                "created_at": ["type": "string", "format": "date-time"],
                "expires_at": ["type": "string", "format": "date-time", "nullable": true],
                "last_used_at": ["type": "string", "format": "date-time", "nullable": true],
                "token": [
                    "type": "string",
                    "nullable": true,
                    "description": "The secret (prefix `npt_`), only in the answer that created it.",
                ],
            ],
        ],
        "PersonalTokenList": [
            "type": "object",
            "required": ["tokens"],
            "properties": ["tokens": ["type": "array", "items": schema("PersonalToken")]],
        ],
        "Note": [
            "type": "object",
            "required": ["id", "path", "hash", "rev", "size", "created_at", "updated_at", "deleted"],
            "properties": [
                "id": ["type": "string", "format": "uuid"],
                "path": [
                    "type": "string",
                    "description": "Relative, `/`-separated, NFC, ends in `.md`.",
                    "example": "projects/plan.md",
                ],
                "content": [
                    "type": "string",
                    "nullable": true,
                    "description": "The Markdown, byte-exact; only where the endpoint includes it.",
                ],
                "hash": [
                    "type": "string",
                    "pattern": "^[0-9a-f]{64}$",
                    "description": "SHA-256 hex of the content's UTF-8 bytes.",
                ],
                "rev": [
                    "type": "integer",
                    "format": "int64",
                    "description": "The per-user sequence number of the note's latest change.",
                ],
                "size": ["type": "integer", "description": "Content size in UTF-8 bytes."],
                "created_at": ["type": "string", "format": "date-time"],
                "updated_at": ["type": "string", "format": "date-time"],
                "deleted": ["type": "boolean", "description": "True for a tombstone."],
                "kind": [
                    "type": "string",
                    "enum": ["note", "attachment"],
                    "description": "Note or attachment (absent from servers before attachments: note).",
                ],
                "media_type": [
                    "type": "string",
                    "description": "An attachment's media type, from the fixed table by extension; absent for notes.",
                ],
            ],
        ],
        "PutNoteRequest": [
            "type": "object",
            "required": ["path", "content"],
            "properties": [
                "path": [
                    "type": "string",
                    "minLength": 4,
                    "maxLength": 1024,
                    "pattern": "^[^/.\\\\][^\\\\]*\\.md$",
                    "description": """
                        Relative and `/`-separated, at most 1024 UTF-8 bytes, ending in `.md`; no empty, `.`-leading \
                        or over-255-byte segments, backslashes or control characters. A new path (a create or a \
                        rename) may not hold the embedding, override and isolate controls U+202A–U+202E and \
                        U+2066–U+2069; every other character is stored byte-exact (after NFC), zero-width space, \
                        joiners, direction marks and spaces at the ends of a segment included.
                        """,
                ],
                "content": ["type": "string", "description": "The Markdown, at most `max_note_bytes` UTF-8 bytes."],
            ],
        ],
        "NoteListPage": [
            "type": "object",
            "required": ["notes"],
            "properties": [
                "notes": [
                    "type": "array",
                    "items": schema("Note"),
                    "description": "Live notes ordered by path, without content.",
                ],
                "next_cursor": [
                    "type": "string",
                    "nullable": true,
                    "description": "Pass as `after` for the next page; absent on the last page.",
                ],
            ],
        ],
        "ChangesPage": [
            "type": "object",
            "required": ["changes", "cursor", "has_more"],
            "properties": [
                "changes": [
                    "type": "array",
                    "items": schema("Note"),
                    "description": "In rev order, each note once at its latest state, tombstones included.",
                ],
                "cursor": ["type": "string", "description": "Opaque; pass as `since` to continue."],
                "has_more": ["type": "boolean"],
                "user_id": [
                    "type": "integer",
                    "format": "int64",
                    "description": """
                        Whose notes these are (the caller's user id; always sent by this server): a client checks the \
                        account a folder is bound to without another request.
                        """,
                ],
            ],
        ],
        "Revision": [
            "type": "object",
            "required": ["id", "rev", "path", "hash", "size", "deleted", "created_at"],
            "properties": [
                "id": ["type": "string", "format": "uuid"],
                "rev": ["type": "integer", "format": "int64"],
                "path": ["type": "string"],
                "hash": ["type": "string"],
                "size": ["type": "integer"],
                "deleted": ["type": "boolean"],
                "created_at": ["type": "string", "format": "date-time"],
                "content": [
                    "type": "string",
                    "nullable": true,
                    "description": "Only when one revision of a note is asked for: a merge base (never for attachments).",
                ],
                "kind": [
                    "type": "string",
                    "enum": ["note", "attachment"],
                    "description": "Note or attachment (absent from servers before attachments: note).",
                ],
                "media_type": [
                    "type": "string",
                    "description": "An attachment's media type, from the fixed table by extension; absent for notes.",
                ],
                "device": [
                    "type": "string",
                    "description": """
                        The device that made this revision: the signed-in session's device name, or `token:NAME` for \
                        a personal token. Absent for revisions made before the server recorded it, or by a session \
                        that gave no device name.
                        """,
                ],
            ],
        ],
        "RevisionList": [
            "type": "object",
            "required": ["revisions"],
            "properties": [
                "revisions": [
                    "type": "array",
                    "items": schema("Revision"),
                    "description": "Newest first, without content.",
                ],
            ],
        ],
        "SearchHit": [
            "type": "object",
            "required": ["id", "path", "snippet", "rev", "text", "highlights"],
            "properties": [
                "id": ["type": "string", "format": "uuid"],
                "path": ["type": "string"],
                "snippet": ["type": "string", "description": "For older clients: the text with matched words in `**` (indistinguishable from Markdown bold; draw `text` and `highlights` instead)."],
                "text": ["type": "string", "maxLength": 300,
                         "description": "Plain text around the match, at most 300 characters (Unicode scalars) whatever the note's lines; `…` where it was cut."],
                "highlights": ["type": "array", "items": schema("SearchHighlight"),
                               "description": "The matched words in `text`, in order, not overlapping."],
                "rev": ["type": "integer", "format": "int64"],
            ],
        ],
        "SearchHighlight": [
            "type": "object",
            "required": ["start", "end"],
            "description": "`start..<end` in Unicode scalars (code points) of the hit's `text`.",
            "properties": [
                "start": ["type": "integer", "minimum": 0],
                "end": ["type": "integer", "minimum": 0],
            ],
        ],
        "SearchResults": [
            "type": "object",
            "required": ["results"],
            "properties": [
                "results": ["type": "array", "items": schema("SearchHit"), "description": "Best match first."],
            ],
        ],
        "BatchOperation": [
            "type": "object",
            "required": ["op", "id"],
            "properties": [
                "op": ["type": "string", "enum": ["put", "delete"]],
                "id": ["type": "string", "format": "uuid"],
                "path": ["type": "string", "nullable": true, "description": "Required for put."],
                "content": ["type": "string", "nullable": true, "description": "Required for put."],
                "if_match": [
                    "type": "integer",
                    "format": "int64",
                    "nullable": true,
                    "description": "The revision the write is based on (update, delete).",
                ],
                "if_none_match": ["type": "string", "enum": ["*"], "nullable": true, "description": "`*` to create."],
                "kind": [
                    "type": "string",
                    "enum": ["note", "attachment"],
                    "description": "What a put writes (default note). An attachment put carries `hash`, not `content`.",
                ],
                "hash": [
                    "type": "string",
                    "nullable": true,
                    "description": """
                        An attachment put: the SHA-256 of content the caller's store holds (uploaded, or reported present \
                        by `/v1/content/missing`); else `409 content_missing`.
                        """,
                ],
            ],
        ],
        "BatchRequest": [
            "type": "object",
            "required": ["operations"],
            "properties": [
                "operations": [
                    "type": "array",
                    "items": schema("BatchOperation"),
                    "description": "At most `max_batch_operations`.",
                ],
            ],
        ],
        "BatchResult": [
            "type": "object",
            "required": ["id", "status"],
            "properties": [
                "id": ["type": "string", "format": "uuid"],
                "status": [
                    "type": "integer",
                    "description": """
                        The HTTP status the operation would have had alone (200, 201, 400, 404, 409, 412, 413, 428).
                        """,
                ],
                "note": [
                    "allOf": [schema("Note")],
                    "nullable": true,
                    "description": "The note after the write, or its current state for a 412.",
                ],
                "error": ["allOf": [schema("ErrorDetail")], "nullable": true],
            ],
        ],
        "BatchResponse": [
            "type": "object",
            "required": ["results"],
            "properties": [
                "results": [
                    "type": "array",
                    "items": schema("BatchResult"),
                    "description": "One per operation, in request order.",
                ],
                "cursor_before": [
                    "type": "string",
                    "description": """
                        The changes-feed cursor (as a page's `cursor`) just before this batch's first write. Absent when \
                        the batch wrote nothing, and from servers before it.
                        """,
                ],
                "cursor_after": [
                    "type": "string",
                    "description": """
                        The changes-feed cursor just after this batch's last write: every change between `cursor_before` \
                        and it is one of this batch's results, so a client whose cursor was `cursor_before` may move to \
                        it without reading those changes back. Present exactly when `cursor_before` is.
                        """,
                ],
            ],
        ],
    ]
}
