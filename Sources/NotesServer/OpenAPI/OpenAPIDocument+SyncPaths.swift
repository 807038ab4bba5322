import NotesCore

/// The sync and search paths of the OpenAPI document: the changes feed, batched writes, search.
extension OpenAPIDocument {
    static let syncPaths: OpenAPIValue = [
        "/v1/changes": [
            "get": operation("listChanges", tag: "sync", access: .signedIn,
                summary: """
                    Every note changed after the cursor, tombstones included, in rev order, each note once at its \
                    latest state.
                    """,
                description: """
                    With `wait`, a long poll: when nothing changed after `since`, the request is held until a change \
                    for the same user commits (then that page) or the wait ends (then an empty page with the same \
                    cursor). The server holds at most `max_waiters_per_user` such requests per user and `max_waiters` \
                    in total (see `/v1/limits`); past a cap, and while it shuts down, the empty page comes at once, \
                    with `Retry-After` past a cap.
                    """,
                parameters: [parameter("Since"), parameter("ChangesLimit"), parameter("Include"), parameter("Wait"), parameter("Kinds")],
                responses: [
                    "200": answer(
                        "One page of changes (empty when a long poll's wait ended).",
                        schema("ChangesPage"),
                        headers: [
                            "Retry-After": [
                                "required": false,
                                "description": """
                                    Present when a long poll was not held because the server holds as many as it \
                                    allows: seconds to wait before polling again.
                                    """,
                                "schema": ["type": "integer", "minimum": 0],
                            ],
                        ]
                    ),
                    "410": errorAnswer(
                        """
                            `resync_required`: deletions after this cursor were already purged (or the cursor is \
                            ahead of the account, as after restoring a backup); read again from `since=0`, treating \
                            notes missing from that walk as deleted.
                            """
                    ),
                ]
            ),
        ],
        "/v1/batch": [
            "post": operation("batch", tag: "sync", access: .writeScope, writes: true,
                summary: "Many writes in one transaction, each with its own precondition and its own status.",
                description: """
                    An operation that fails (precondition, path, size) fails alone; the others still apply. The \
                    answer is 200 whenever the batch itself was valid. When the batch wrote anything, the answer \
                    says where the changes feed stood just before and just after its writes (`cursor_before`, \
                    `cursor_after`): nothing else was written between, so a client whose cursor was \
                    `cursor_before` (its batches chained, each `cursor_after` the next one's `cursor_before`) \
                    may store `cursor_after` and skip reading its own writes back from `/v1/changes`.
                    """,
                parameters: [parameter("Omit")],
                requestBody: ["required": true, "content": json(schema("BatchRequest"))],
                responses: [
                    "200": answer("One result per operation, in order.", schema("BatchResponse")),
                    "413": response("PayloadTooLarge"),
                ]
            ),
        ],
        "/v1/search": [
            "get": operation("search", tag: "search", access: .signedIn,
                summary: "Full-text search over the caller's live notes, with snippets of at most 300 characters around the match.",
                parameters: [parameter("Query"), parameter("SearchLimit")],
                responses: ["200": answer("Matches, best first.", schema("SearchResults"))]
            ),
        ],
    ]
}
