import NotesCore

/// The published-note paths of the OpenAPI document: the owner's API and the anonymous pages.
extension OpenAPIDocument {
    static let publicationPaths: OpenAPIValue = [
        "/v1/notes/{id}/publication": [
            "parameters": [parameter("NoteId")],
            "post": operation("publishNote", tag: "publications", access: .writeScope, writes: true,
                summary: "Publish the note: anyone with the link answered here can read it, without signing in.",
                description: """
                    The link (`url`, `/p/<token>` relative to this server) is in this answer only: the server keeps \
                    just a digest of its token. Publishing a note that already has a link makes a new one and revokes \
                    the old at once (the way to withdraw a link that went further than meant). The page shows the \
                    note's current text as it changes, until the link is revoked, expires, or the note is deleted. \
                    The body may be left out for a link that lasts until revoked, marked `noindex`.
                    """,
                requestBody: ["required": false, "content": json(schema("CreatePublicationRequest"))],
                responses: [
                    "201": secretAnswer("Published; `url` and `token` are shown this once.", schema("Publication")),
                    "403": errorAnswer(
                        """
                            `insufficient_scope`: a read-only token cannot publish. `exceeds_creator`: the caller is a \
                            personal token that expires, and the link would outlive it (no `expires_in`, or one past the \
                            token's expiry).
                            """,
                        headers: ["WWW-Authenticate": header("WWWAuthenticate")]
                    ),
                    "404": response("NotFound"),
                ]
            ),
            "delete": operation("unpublishNote", tag: "publications", access: .writeScope, writes: true,
                summary: "Revoke the note's link at once.",
                responses: [
                    "204": ["description": "Revoked: the link answers 404 from now on."],
                    "404": errorAnswer("`not_published`: the caller has no note with this id that has a live link."),
                ]
            ),
        ],
        "/v1/publications": [
            "get": operation("listPublications", tag: "publications", access: .signedIn,
                summary: "The caller's live publications, newest first: which notes are published, never their links.",
                responses: ["200": answer("The publications.", schema("PublicationList"))]
            ),
        ],
        "/p/{token}": [
            "parameters": [publicationToken],
            "get": operation("readPublication", tag: "publications", access: .anyone,
                summary: "A published note as a standalone HTML page, for anyone holding the link.",
                description: """
                    The note's current text rendered in safe mode: no script, links only off the server or within the \
                    page (others render as their text), images only the note's own attachments through the \
                    publication. Answers carry a strict `Content-Security-Policy`, `Referrer-Policy: no-referrer`, \
                    `Cache-Control: no-store` and, unless the owner allowed indexing, `X-Robots-Tag: noindex`. An \
                    unknown, revoked or expired link, or one whose note was deleted, gets the same 404 page. Each client \
                    address may load a limited number of `/p/` pages a minute (429 page with `Retry-After`).
                    """,
                responses: publicationPageAnswers("The page.")
            ),
        ],
        "/p/{token}/a/{path}": [
            "parameters": .array([publicationToken] + attachmentAddress(of: "the note")),
            "get": operation("readPublicationAttachment", tag: "publications", access: .anyone,
                summary: "An attachment the published note embeds (an image), for anyone holding the link.",
                description: """
                    Only the files the note's current text embeds as images are reachable, answered as \
                    `GET /v1/attachments/{id}` answers them: the media type from the fixed table by extension, \
                    `X-Content-Type-Options: nosniff`, `Content-Security-Policy: sandbox`, inline only for plain images \
                    and PDF, Range requests. Any other path (a file the note does not embed, dot segments, a revoked \
                    link) gets the same 404 page as `/p/{token}`; requests count against the same per-address allowance.
                    """,
                responses: publicationPageAnswers("The attachment's bytes.", media: "*/*")
            ),
        ],
        "/p/{token}/n/{link}": [
            "parameters": [publicationToken, publicationLink],
            "get": operation("readLinkedPublication", tag: "publications", access: .anyone,
                summary: "Another published note of the same owner, reached by a link on the page of `token`.",
                description: """
                    A published page links a note its owner has also published here: `link` names that note's \
                    publication (the SHA-256 of its token, in hex; never the token). The page is rendered and \
                    answered as `/p/{token}` answers, its own images under this address; only while both \
                    publications live and belong to one owner, else the same 404 page.
                    """,
                responses: publicationPageAnswers("The page.")
            ),
        ],
        "/p/{token}/n/{link}/a/{path}": [
            "parameters": .array([publicationToken, publicationLink] + attachmentAddress(of: "the linked note")),
            "get": operation("readLinkedPublicationAttachment", tag: "publications", access: .anyone,
                summary: "An attachment the linked published note embeds, as `/p/{token}/a/{path}` serves the note's own.",
                responses: publicationPageAnswers("The attachment's bytes.", media: "*/*")
            ),
        ],
    ]

    /// The parameters naming an attachment from `note`'s folder (`the note`), as
    /// `PublicationLinks.attachmentAddress` writes them.
    private static func attachmentAddress(of note: String) -> [OpenAPIValue] {
        [
            parameter("path", in: .path,
                description: "The attachment's path from \(note)'s folder, without dot segments; it may contain `/`.",
                schema: ["type": "string"]),
            parameter("up", in: .query,
                description: "How many folders above \(note)'s folder `path` starts (default 0).",
                schema: ["type": "integer", "minimum": 0]),
        ]
    }

    /// The publication a link between published notes leads to.
    private static let publicationLink = parameter("link", in: .path,
        description: "The linked note's publication: the SHA-256 of its token, 64 lowercase hex digits.",
        schema: ["type": "string", "pattern": "^[0-9a-f]{64}$"])

    /// The secret of a publication's link.
    private static let publicationToken = parameter("token", in: .path,
        description: "The link's secret, as the publishing answer gave it in `url`.",
        schema: ["type": "string"])

    /// The answers of a `/p/` address: HTML pages (the router's own refusals stay JSON).
    private static func publicationPageAnswers(_ success: String, media: String = "text/html") -> OpenAPIValue {
        let html: OpenAPIValue = ["schema": ["type": "string"]]
        let body: OpenAPIValue = media == "text/html" ? html : ["schema": ["type": "string", "format": "binary"]]
        return [
            "200": ["description": .string(success), "content": [media: body]],
            "404": [
                "description": "The same page for an unknown, revoked or expired link (or a path with no endpoint, as JSON).",
                "content": ["text/html": html, "application/json": ["schema": schema("Error")]],
            ],
            "429": [
                "description": "Too many `/p/` requests from this client address (or requests of any kind, as JSON).",
                "headers": ["Retry-After": header("RetryAfter")],
                "content": ["text/html": html, "application/json": ["schema": schema("Error")]],
            ],
        ]
    }
}
