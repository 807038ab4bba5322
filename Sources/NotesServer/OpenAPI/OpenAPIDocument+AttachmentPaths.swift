import NotesCore

/// The attachment paths of the OpenAPI document: which contents the server lacks,
/// resumable verified uploads, and downloads by hash or by attachment id; with their
/// parameters.
extension OpenAPIDocument {
    static let attachmentParameters: OpenAPIValue = [
        "ContentHash": parameter("hash", in: .path,
            description: "SHA-256 of the content's bytes, 64 lowercase hex characters (else `422 invalid_hash`).",
            schema: ["type": "string", "pattern": "^[0-9a-f]{64}$"]
        ),
        "ChunkIndex": parameter("index", in: .path,
            description: "The chunk's index from 0: bytes `index × chunk_size` onwards.",
            schema: ["type": "integer", "minimum": 0]
        ),
        "Kinds": parameter("kinds", in: .query,
            description: """
                The entry kinds the client handles, comma-separated: `note`, `attachment` or both. Without it only \
                notes whose path ends in lowercase `.md` are shown (what clients from before attachments can write), \
                never attachments.
                """,
            schema: ["type": "string", "example": "note,attachment"]
        ),
        "Range": parameter("Range", in: .header,
            description: """
                One byte range, `bytes=FIRST-LAST`, `bytes=FIRST-` or `bytes=-SUFFIX`: answered 206 with \
                `Content-Range`, or 416 when it starts past the end. Other forms are ignored (200, whole content).
                """,
            schema: ["type": "string", "example": "bytes=0-1023"]
        ),
        "IfNoneMatchContent": parameter("If-None-Match", in: .header,
            description: "The content's ETag (`\"<hash>\"`): 304 when it is still the same.",
            schema: ["type": "string"]
        ),
    ]

    /// The answers of a download: the bytes, a range of them, not modified, or no such range.
    private static func downloadAnswers(_ what: String, mediaType: String = "application/octet-stream") -> OpenAPIValue {
        let binary: OpenAPIValue = [mediaType: ["schema": ["type": "string", "format": "binary"]]]
        let headers: OpenAPIValue = [
            "ETag": ["description": "`\"<hash>\"`: the content's SHA-256, quoted.", "schema": ["type": "string"]],
            "Content-Security-Policy": ["description": "Always `sandbox`.", "schema": ["type": "string"]],
            "Content-Disposition": [
                "description": "`attachment` (or `inline` for plain images and PDF), with the file name.",
                "schema": ["type": "string"],
            ],
        ]
        return [
            "200": ["description": .string(what), "headers": headers, "content": binary],
            "206": [
                "description": "The asked range of the bytes, with `Content-Range: bytes FIRST-LAST/SIZE`.",
                "headers": .merged(headers, ["Content-Range": ["schema": ["type": "string"]]]),
                "content": binary,
            ],
            "304": ["description": "Not modified: `If-None-Match` named this content."],
            "404": errorAnswer("No such content (or attachment) for this user; other users' contents are never revealed."),
            "416": errorAnswer(
                "`range_not_satisfiable`: the range starts past the end; `Content-Range: bytes */SIZE` says the size.",
                headers: ["Content-Range": ["schema": ["type": "string"]]]
            ),
            "503": errorAnswer(
                "`content_store_unavailable`: the attachment store (an S3 bucket) cannot be reached right now; retry after `Retry-After`.",
                headers: ["Retry-After": header("RetryAfter")]
            ),
        ]
    }

    static let attachmentPaths: OpenAPIValue = [
        "/v1/content": [
            "post": operation("putContents", tag: "attachments", access: .writeScope, writes: true,
                summary: "Stores several small contents sent in one request, each verified against its hash.",
                description: """
                    What `PUT /v1/content/{hash}` does for one content, for many in one round trip and one \
                    transaction: the body (`application/vnd.notes.content-batch`, at most `max_content_batch_bytes`, \
                    `Content-Length` required and checked against the caller's quota before the body is read) is a run \
                    of frames, each the ASCII line `<hash> <size>\\n` (64 lowercase hex digits, a space, the size in \
                    decimal) followed by exactly `size` bytes, at most 256 frames. Each content is stored only if its \
                    bytes hash to its hash; the answer gives one result per frame, in order: `created`, `present` \
                    (stored already) or `content_mismatch` (nothing of it was stored; the others are). Stored contents \
                    are held for an hour. Servers without this endpoint do not publish `max_content_batch_bytes`.
                    """,
                requestBody: [
                    "required": true,
                    "content": ["application/vnd.notes.content-batch": ["schema": ["type": "string", "format": "binary"]]],
                ],
                responses: [
                    "200": answer("One result per frame, in the order sent.", schema("ContentBatchResponse")),
                    "400": errorAnswer("`invalid_batch`: the body is not a run of well-formed frames (nothing was stored)."),
                    "411": errorAnswer("`length_required`: no `Content-Length`."),
                    "413": errorAnswer(
                        "`batch_too_large` (over `max_content_batch_bytes`), `chunked_upload_required` (a content over "
                        + "`upload_chunk_bytes` or `max_attachment_bytes`), or more bytes than `Content-Length` announced; nothing was stored."
                    ),
                    "507": errorAnswer("`quota_exceeded`: the contents do not fit the caller's quota (nothing was stored); or `insufficient_storage`."),
                ]
            ),
        ],
        "/v1/content/missing": [
            "post": operation("contentMissing", tag: "attachments", access: .writeScope, writes: true,
                summary: "Which of these contents (by SHA-256) the caller's store lacks; the others are held for an hour.",
                description: """
                    Ask before uploading: a content already stored (a rename, a copy, a file uploaded before) costs no \
                    transfer. Every asked hash not in `missing` is held: a purge keeps it at least an hour, so the batch \
                    that refers to it can commit. At most 1,000 hashes per request.
                    """,
                requestBody: ["required": true, "content": json(schema("ContentMissingRequest"))],
                responses: [
                    "200": answer("The hashes the store lacks, in the order asked.", schema("ContentMissingResponse")),
                    "413": errorAnswer("`too_many_hashes` (over 1,000), or a body over `max_request_bytes`."),
                    "422": errorAnswer("`invalid_hash`: a hash is not 64 lowercase hex characters."),
                ]
            ),
        ],
        "/v1/content/{hash}": [
            "parameters": [parameter("ContentHash")],
            "get": operation("getContent", tag: "attachments", access: .signedIn,
                summary: "A stored content's bytes, by hash, streamed; `Range` supported.",
                description: """
                    Served as `application/octet-stream` download under `Content-Security-Policy: sandbox` and \
                    `nosniff`. Only contents the caller's own store holds.
                    """,
                parameters: [parameter("Range"), parameter("IfNoneMatchContent")],
                responses: .merged(downloadAnswers("The bytes."), ["422": errorAnswer("`invalid_hash`.")])
            ),
            "put": operation("putContent", tag: "attachments", access: .writeScope, writes: true,
                summary: "Stores a content no larger than one chunk, sent whole in one request and verified against its hash.",
                description: """
                    The one-request form of open, chunk and complete, for contents of at most `upload_chunk_bytes`: \
                    `Content-Length` (required) is checked against `max_attachment_bytes` and the caller's quota before \
                    the body is read, the body streams to disk as the content itself, and the content is stored only if \
                    its SHA-256 is the hash (else `422 content_mismatch` and nothing of it remains). 201 stored it; 200 \
                    found it stored already. Larger contents use `POST /v1/uploads`; many small ones, `POST /v1/content`. \
                    The content is held for an hour, as after complete.
                    """,
                requestBody: [
                    "required": true,
                    "content": ["application/octet-stream": ["schema": ["type": "string", "format": "binary"]]],
                ],
                responses: [
                    "200": answer("Already stored.", schema("StoredContent")),
                    "201": answer("Stored.", schema("StoredContent")),
                    "411": errorAnswer("`length_required`: no `Content-Length`."),
                    "413": errorAnswer(
                        "`attachment_too_large` (over `max_attachment_bytes`), `chunked_upload_required` (over `upload_chunk_bytes`: "
                        + "use `POST /v1/uploads`), or more bytes than `Content-Length` announced."
                    ),
                    "422": errorAnswer("`content_mismatch` (nothing was stored) or `invalid_hash`."),
                    "507": errorAnswer("`quota_exceeded`: the content does not fit the caller's quota (`quota_bytes`); or `insufficient_storage`."),
                ]
            ),
        ],
        "/v1/uploads": [
            "post": operation("openUpload", tag: "attachments", access: .writeScope, writes: true,
                summary: "Opens (or finds) the resumable upload of one content; nothing is stored yet.",
                description: """
                    The size is checked against `max_attachment_bytes` (`413 attachment_too_large`) and the caller's \
                    quota (`507 quota_exceeded`) before any byte is sent. 201 opens a new upload; 200 finds an open one \
                    (`received` lists the chunks it has: send only the others) or a content already stored (every \
                    chunk received; complete needs nothing more). An open upload of the same hash with another size \
                    starts over. Unfinished uploads untouched for a day are removed.
                    """,
                requestBody: ["required": true, "content": json(schema("UploadRequest"))],
                responses: [
                    "200": answer("Found: an open upload, or the content already stored.", schema("UploadState")),
                    "201": answer("Opened.", schema("UploadState")),
                    "413": errorAnswer("`attachment_too_large`: over `max_attachment_bytes`; or a body over `max_request_bytes`."),
                    "422": errorAnswer("`invalid_hash` or `invalid_size`."),
                    "507": errorAnswer("`quota_exceeded`: the content does not fit the caller's quota (`quota_bytes`); or `insufficient_storage`."),
                ]
            ),
        ],
        "/v1/uploads/{hash}": [
            "parameters": [parameter("ContentHash")],
            "get": operation("getUpload", tag: "attachments", access: .writeScope,
                summary: "An open upload's progress: the chunk size and the chunks stored so far.",
                responses: [
                    "200": answer("The upload.", schema("UploadState")),
                    "404": errorAnswer("`not_found`: no upload of this content is open."),
                    "422": errorAnswer("`invalid_hash`."),
                ]
            ),
        ],
        "/v1/uploads/{hash}/chunks/{index}": [
            "parameters": [parameter("ContentHash"), parameter("ChunkIndex")],
            "put": operation("putChunk", tag: "attachments", access: .writeScope, writes: true,
                summary: "Stores one chunk, verified against its `Content-Digest`; streamed to disk.",
                description: """
                    The body is exactly `chunk_size` bytes (the last chunk: the rest). A wrong length announced in \
                    `Content-Length` is refused before the body is read; a wrong length or digest once read answers \
                    `422 chunk_mismatch` and nothing is kept. A chunk already stored stays as it is: sent again, it is \
                    checked against its digest and not stored again.
                    """,
                parameters: [
                    parameter("Content-Digest", in: .header, required: true,
                        description: "RFC 9530: `sha-256=:<base64 of the chunk's SHA-256>:`.",
                        schema: ["type": "string", "example": "sha-256=:47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU=:"]),
                ],
                requestBody: [
                    "required": true,
                    "content": ["application/octet-stream": ["schema": ["type": "string", "format": "binary"]]],
                ],
                responses: [
                    "204": ["description": "Stored."],
                    "400": errorAnswer("`digest_required` or `invalid_digest`; or a malformed request."),
                    "404": errorAnswer("`not_found`: no upload of this content is open."),
                    "413": errorAnswer("`payload_too_large`: more bytes than the chunk holds."),
                    "422": errorAnswer("`chunk_mismatch`, `chunk_out_of_range` or `invalid_hash`."),
                    "503": errorAnswer(
                        """
                            `chunk_in_progress`: another request is still sending this chunk; `content_store_unavailable`: \
                            the attachment store cannot be reached; or the database cannot be written now (as \
                            `StorageUnavailable`). Send it again after `Retry-After`.
                            """,
                        headers: ["Retry-After": header("RetryAfter")]),
                ]
            ),
        ],
        "/v1/uploads/{hash}/complete": [
            "parameters": [parameter("ContentHash")],
            "post": operation("completeUpload", tag: "attachments", access: .writeScope, writes: true,
                summary: "Joins the chunks and stores the content if its SHA-256 is the hash.",
                description: """
                    Answers 201 once every chunk is there and the whole content's SHA-256 equals the hash (again for a \
                    content already stored); a batch may then refer to it. Otherwise `422 content_mismatch` and the \
                    upload is discarded. The content is held for an hour, so a purge keeps it until the batch commits.
                    """,
                responses: [
                    "201": answer("Stored.", schema("StoredContent")),
                    "404": errorAnswer("`not_found`: no upload of this content is open."),
                    "409": errorAnswer("`upload_incomplete`: chunks are still missing (named in the message)."),
                    "422": errorAnswer("`content_mismatch` (the upload was discarded) or `invalid_hash`."),
                ]
            ),
        ],
        "/v1/attachments/{id}": [
            "parameters": [parameter("NoteId")],
            "get": operation("getAttachment", tag: "attachments", access: .signedIn,
                summary: "An attachment's current bytes, with a media type from a fixed table by extension; `Range` supported.",
                description: """
                    `Content-Type` comes from the path's extension, never from the bytes; `X-Content-Type-Options: \
                    nosniff` and `Content-Security-Policy: sandbox` always; `Content-Disposition: inline` only for \
                    plain images (png, jpeg, gif, webp, avif, bmp, ico) and PDF, `attachment` for everything a browser \
                    could execute (HTML, SVG, XML, JavaScript) or does not know.
                    """,
                parameters: [parameter("Range"), parameter("IfNoneMatchContent")],
                responses: downloadAnswers("The bytes, as the attachment's media type.", mediaType: "*/*")
            ),
        ],
    ]
}
