import NotesCore

/// The `/v1/notes` paths of the OpenAPI document.
extension OpenAPIDocument {
    static let notesPaths: OpenAPIValue = [
        "/v1/notes": [
            "get": operation("listNotes", tag: "notes", access: .signedIn,
                summary: "Live notes (metadata, no content), ordered by path, paged.",
                parameters: [parameter("ListLimit"), parameter("After"), parameter("PathFilter"), parameter("Kinds")],
                responses: ["200": answer("One page.", schema("NoteListPage"))]
            ),
        ],
        "/v1/notes/{id}": [
            "parameters": [parameter("NoteId")],
            "get": operation("getNote", tag: "notes", access: .signedIn,
                summary: "The note with its content; `Accept: text/markdown` gives the raw bytes instead.",
                parameters: [parameter("IfNoneMatchRead")],
                responses: [
                    "200": [
                        "description": "The live note.",
                        "headers": ["ETag": header("ETag")],
                        "content": [
                            "application/json": ["schema": schema("Note")],
                            "text/markdown": [
                                "schema": ["type": "string", "description": "The content's bytes exactly as stored."],
                            ],
                        ],
                    ],
                    "304": answer("Not modified: `If-None-Match` matched.", headers: ["ETag": header("ETag")]),
                    "404": errorAnswer("No such note (`not_found`) or it was deleted (`note_deleted`)."),
                ]
            ),
            "put": operation("putNote", tag: "notes", access: .writeScope, writes: true,
                summary: "Create (`If-None-Match: *`) or update (`If-Match`) a note's content and/or path.",
                description: """
                    A rename keeps the id and the history. Re-creating a deleted id with `If-None-Match: *` is \
                    allowed. A retried identical create answers 200 with the same rev.
                    """,
                parameters: [parameter("IfMatch"), parameter("IfNoneMatchCreate")],
                requestBody: ["required": true, "content": json(schema("PutNoteRequest"))],
                responses: [
                    "200": answer(
                        "Updated (or an identical retry); the answer has no content.",
                        schema("Note"),
                        headers: ["ETag": header("ETag")]
                    ),
                    "201": answer(
                        "Created; the answer has no content.",
                        schema("Note"),
                        headers: ["ETag": header("ETag")]
                    ),
                    "404": response("NotFound"),
                    "409": response("Conflict"),
                    "412": response("PreconditionFailed"),
                    "413": response("PayloadTooLarge"),
                    "428": response("PreconditionRequired"),
                ]
            ),
            "delete": operation("deleteNote", tag: "notes", access: .writeScope, writes: true,
                summary: "Delete: the note becomes a tombstone in the changes feed until purged.",
                parameters: [parameter("IfMatchDelete")],
                responses: [
                    "200": answer(
                        "The tombstone (`deleted: true`); deleting a tombstone again at its rev is a no-op.",
                        schema("Note"),
                        headers: ["ETag": header("ETag")]
                    ),
                    "404": response("NotFound"),
                    "412": response("PreconditionFailed"),
                    "428": response("PreconditionRequired"),
                ]
            ),
        ],
        "/v1/notes/{id}/html": [
            "parameters": [parameter("NoteId")],
            "get": operation("getNoteHTML", tag: "notes", access: .signedIn,
                summary: """
                    The note rendered in the server's flavour (`notes-server serve --markdown`) or the one `flavour` \
                    names: raw HTML omitted, a link with an unsafe scheme shown as its text.
                    """,
                parameters: [parameter("Standalone"), parameter("Flavour")],
                responses: [
                    "200": [
                        "description": """
                            An HTML fragment, or a full page with `standalone=1` titled by the front matter's \
                            `title`, else the first heading, else the file name; sent with a restrictive \
                            Content-Security-Policy. Wiki links resolve against the caller's notes and files, to \
                            addresses relative to the note's folder as its Markdown links are; `#tags` lead to the \
                            web app's `/tags/NAME`; headings carry ids. A note whose block quotes or lists nest more than 32 levels, \
                            or with more than 500,000 lines and markup characters, is not rendered: it comes as \
                            `<p class="notes-unrendered">` with a notice, then its text escaped in \
                            `<pre class="notes-unrendered-text">`.
                            """,
                        "headers": ["ETag": header("ETag")],
                        "content": ["text/html": ["schema": ["type": "string"]]],
                    ],
                    "404": response("NotFound"),
                    "503": errorAnswer(
                        """
                            `busy`: a note over 64 KiB without a kept rendering, while 4 of the caller's notes \
                            (or 32 in all) are being rendered; retry after `Retry-After`.
                            """,
                        headers: ["Retry-After": header("RetryAfter")]
                    ),
                ]
            ),
        ],
        "/v1/notes/{id}/metadata": [
            "parameters": [parameter("NoteId")],
            "get": operation("getNoteMetadata", tag: "notes", access: .signedIn,
                summary: """
                    The note's title, tags and aliases as the server's flavour reads them: front matter `title`, else \
                    the first heading, else the file name; front matter `tags` and inline `#tags`; front matter \
                    `aliases`. In pure CommonMark (`--markdown commonmark`) there is no front matter or tag.
                    """,
                responses: [
                    "200": answer("The metadata.", schema("NoteMetadata"), headers: ["ETag": header("ETag")]),
                    "404": response("NotFound"),
                    "503": errorAnswer(
                        """
                            `busy`: a note over 64 KiB while 4 of the caller's notes (or 32 in all) are being rendered; \
                            retry after `Retry-After`.
                            """,
                        headers: ["Retry-After": header("RetryAfter")]
                    ),
                ]
            ),
        ],
        "/v1/notes/{id}/revisions": [
            "parameters": [parameter("NoteId")],
            "get": operation("listRevisions", tag: "notes", access: .signedIn,
                summary: "The note's history, newest first, without content.",
                responses: ["200": answer("The revisions.", schema("RevisionList")), "404": response("NotFound")]
            ),
        ],
        "/v1/notes/{id}/revisions/{rev}": [
            "parameters": [parameter("NoteId"), parameter("Rev")],
            "get": operation("getRevision", tag: "notes", access: .signedIn,
                summary: "One revision with its content: a merge base for sync.",
                responses: ["200": answer("The revision.", schema("Revision")), "404": response("NotFound")]
            ),
        ],
    ]
}
