/// `GET /v1/limits`: what the server enforces, so clients can split work to fit.
public struct ServerLimits: Codable, Sendable, Equatable {
    public var maxNoteBytes: Int
    public var maxRequestBytes: Int
    public var maxBatchOperations: Int
    public var maxPageSize: Int
    public var requestsPerMinute: Int

    public init(maxNoteBytes: Int, maxRequestBytes: Int, maxBatchOperations: Int, maxPageSize: Int, requestsPerMinute: Int) {
        self.maxNoteBytes = maxNoteBytes
        self.maxRequestBytes = maxRequestBytes
        self.maxBatchOperations = maxBatchOperations
        self.maxPageSize = maxPageSize
        self.requestsPerMinute = requestsPerMinute
    }
}
