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

    public init(maxNoteBytes: Int, maxRequestBytes: Int, maxBatchOperations: Int, maxPageSize: Int, requestsPerMinute: Int,
                maxPageBytes: Int? = nil, maxUnauthenticatedRequestBytes: Int? = nil) {
        self.maxNoteBytes = maxNoteBytes
        self.maxRequestBytes = maxRequestBytes
        self.maxBatchOperations = maxBatchOperations
        self.maxPageSize = maxPageSize
        self.requestsPerMinute = requestsPerMinute
        self.maxPageBytes = maxPageBytes
        self.maxUnauthenticatedRequestBytes = maxUnauthenticatedRequestBytes
    }
}
