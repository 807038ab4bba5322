import NotesCore

/// The trash and purge paths of the OpenAPI document.
extension OpenAPIDocument {
    static let historyPaths: OpenAPIValue = [
        "/v1/trash": [
            "get": operation("listTrash", tag: "notes", access: .signedIn,
                summary: """
                    Deleted notes and attachments that can still be restored, most recently deleted first, with \
                    each one's kind and when it will be purged.
                    """,
                description: """
                    A deleted note stays restorable until its deletion is older than the server's tombstone retention \
                    (`purge_at`). Restore one by writing its last content (`GET /v1/notes/{id}/revisions/{last_rev}`) \
                    back with `PUT /v1/notes/{id}` and `If-None-Match: *`. Purged notes are not listed.
                    """,
                parameters: [
                    [
                        "name": "limit",
                        "in": "query",
                        "required": false,
                        "description": "Entries per page, 1 to `max_page_size` (default 200).",
                        "schema": ["type": "integer", "minimum": 1, "default": 200],
                    ],
                    [
                        "name": "before",
                        "in": "query",
                        "required": false,
                        "description": "The `next_cursor` of the previous page.",
                        "schema": ["type": "string"],
                    ],
                    [
                        "name": "path",
                        "in": "query",
                        "required": false,
                        "description": """
                            Only deleted notes that had exactly this path when deleted (after NFC normalisation).
                            """,
                        "schema": ["type": "string"],
                    ],
                    parameter("Kinds"),
                ],
                responses: ["200": answer("One page.", schema("TrashPage"))]
            ),
        ],
        "/v1/notes/{id}/purge": [
            "parameters": [parameter("NoteId")],
            "post": operation("purgeNote", tag: "notes", access: .writeScope, writes: true,
                summary: """
                    Removes the note and every revision of it for good (a pasted secret, say); it cannot be restored \
                    afterwards.
                    """,
                description: """
                    A live note is deleted first, so every folder syncs the deletion; its tombstone (without content) \
                    stays in the changes feed until the tombstone retention drops it. The full-text index forgets the \
                    note's words. Purging an already purged note answers 200 again with `purged_revisions: 0`, \
                    whatever `If-Match` says, so a retry is safe.
                    """,
                parameters: [
                    [
                        "name": "If-Match",
                        "in": "header",
                        "required": true,
                        "description": """
                            The note's current revision (a deleted note's: its deletion), as an ETag: `"12"`; without \
                            it the answer is 428.
                            """,
                        "schema": ["type": "string", "example": "\"12\""],
                    ],
                ],
                responses: [
                    "200": answer("Purged.", schema("PurgeResult")),
                    "404": response("NotFound"),
                    "412": response("PreconditionFailed"),
                    "428": response("PreconditionRequired"),
                ]
            ),
        ],
    ]
}
