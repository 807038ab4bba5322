/// `GET /v1/limits`: what the server enforces, so clients can split work to fit.
public struct ServerLimits: Codable, Sendable, Equatable {
    public var maxNoteBytes: Int
    public var maxRequestBytes: Int
    public var maxBatchOperations: Int
    public var maxPageSize: Int
    public var requestsPerMinute: Int
    /// The most bytes a changes page carrying content holds (a larger note comes alone on its
    /// page). Optional: servers before it did not publish it.
    public var maxPageBytes: Int?
    /// The largest body accepted without a bearer token (sign-in, refresh).
    public var maxUnauthenticatedRequestBytes: Int?
    /// The longest `wait` a changes request is held for (the long poll); absent: the server
    /// does not hold changes requests (it answers at once whatever `wait` says).
    public var maxWaitSeconds: Int?
    /// Changes requests one user may have held at once; more are answered at once with an empty page.
    public var maxWaitersPerUser: Int?
    /// Changes requests the server holds at once for everyone together.
    public var maxWaiters: Int?
    /// The largest attachment accepted (`--max-attachment-size`); absent: the server does not
    /// take attachments.
    public var maxAttachmentBytes: Int?
    /// The size of every chunk of an upload but the last (`PUT /v1/uploads/{hash}/chunks/{i}`).
    public var uploadChunkBytes: Int?
    /// Each user's storage quota in bytes (`--quota`); absent: none.
    public var quotaBytes: Int?
    /// The largest body of `POST /v1/content` (several small contents in one request, framed
    /// as `ContentBatch` says); absent: the server has no such endpoint (send each whole).
    public var maxContentBatchBytes: Int?

    public init(maxNoteBytes: Int, maxRequestBytes: Int, maxBatchOperations: Int, maxPageSize: Int, requestsPerMinute: Int,
                maxPageBytes: Int? = nil, maxUnauthenticatedRequestBytes: Int? = nil,
                maxWaitSeconds: Int? = nil, maxWaitersPerUser: Int? = nil, maxWaiters: Int? = nil,
                maxAttachmentBytes: Int? = nil, uploadChunkBytes: Int? = nil, quotaBytes: Int? = nil,
                maxContentBatchBytes: Int? = nil) {
        self.maxNoteBytes = maxNoteBytes
        self.maxRequestBytes = maxRequestBytes
        self.maxBatchOperations = maxBatchOperations
        self.maxPageSize = maxPageSize
        self.requestsPerMinute = requestsPerMinute
        self.maxPageBytes = maxPageBytes
        self.maxUnauthenticatedRequestBytes = maxUnauthenticatedRequestBytes
        self.maxWaitSeconds = maxWaitSeconds
        self.maxWaitersPerUser = maxWaitersPerUser
        self.maxWaiters = maxWaiters
        self.maxAttachmentBytes = maxAttachmentBytes
        self.uploadChunkBytes = uploadChunkBytes
        self.quotaBytes = quotaBytes
        self.maxContentBatchBytes = maxContentBatchBytes
    }
}

extension ServerLimits: WireDescribed {
    public static let wireShape = WireShape<ServerLimits>("ServerLimits", fields: [
        .required("max_note_bytes", \.maxNoteBytes, ["description": "Largest note content, in UTF-8 bytes."]),
        .required("max_request_bytes", \.maxRequestBytes, ["description": "Largest request body, in bytes."]),
        .required("max_batch_operations", \.maxBatchOperations),
        .required("max_page_size", \.maxPageSize, ["description": "Largest `limit` of the list and changes endpoints."]),
        .required("requests_per_minute", \.requestsPerMinute),
        .optional("max_page_bytes", \.maxPageBytes,
                  ["description": "Most bytes in a changes page carrying content; a larger note comes alone on its page."]),
        .optional("max_unauthenticated_request_bytes", \.maxUnauthenticatedRequestBytes,
                  ["description": "Largest body accepted without a bearer token (sign-in, refresh)."]),
        .optional("max_wait_seconds", \.maxWaitSeconds,
                  ["description": "Longest `wait` a changes request is held for; absent on servers without the long poll."]),
        .optional("max_waiters_per_user", \.maxWaitersPerUser, ["description": "Changes requests one user may have held at once."]),
        .optional("max_waiters", \.maxWaiters, ["description": "Changes requests the server holds at once in total."]),
        .optional("max_attachment_bytes", \.maxAttachmentBytes, [
            "description": "Largest attachment (`--max-attachment-size`); larger uploads answer 413 before any byte is stored.",
        ]),
        .optional("upload_chunk_bytes", \.uploadChunkBytes, ["description": "Size of every upload chunk but the last."]),
        .optional("quota_bytes", \.quotaBytes,
                  ["description": "Attachment bytes each user may store (`--quota`); absent: no quota."]),
        .optional("max_content_batch_bytes", \.maxContentBatchBytes, [
            "description": "Largest body of `POST /v1/content` (several small contents in one request); absent: no such endpoint.",
        ]),
    ])
}
