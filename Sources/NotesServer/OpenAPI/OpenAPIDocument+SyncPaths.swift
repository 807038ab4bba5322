/// The sync and search paths of the OpenAPI document: the changes feed, batched writes, search.
extension OpenAPIDocument {
    static let syncPaths: OpenAPIValue = [
        "/v1/changes": [
            "get": operation("listChanges", tag: "sync", access: .signedIn,
                summary: """
                    Every note changed after the cursor, tombstones included, in rev order, each note once at its \
                    latest state.
                    """,
                parameters: [parameter("Since"), parameter("ChangesLimit"), parameter("Include")],
                responses: [
                    "200": answer("One page of changes.", schema("ChangesPage")),
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
                    answer is 200 whenever the batch itself was valid.
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
                summary: "Full-text search over the caller's live notes, with snippets.",
                parameters: [parameter("Query"), parameter("SearchLimit")],
                responses: ["200": answer("Matches, best first.", schema("SearchResults"))]
            ),
        ],
    ]
}
