/// Placeholder until attachment bytes are stored in PostgreSQL (`PostgresBlobStore`, migration 13):
/// every operation fails, so attachments on PostgreSQL answer a storage error rather than
/// landing anywhere but the shared database.
struct PostgresBlobStore: BlobStore {
    init(pool: PostgresPool) {}

    private static let pending = BlobStoreError(operation: "store attachment content in PostgreSQL (not built yet)", code: 38 /* ENOSYS */)

    func openContent(userID: Int64, hash: String) throws(BlobStoreError) -> ContentFile? { throw Self.pending }
    func makeChunkSink(userID: Int64, hash: String, index: Int) throws(BlobStoreError) -> any ChunkSink { throw Self.pending }
    func receivedChunks(userID: Int64, hash: String) throws(BlobStoreError) -> [Int] { throw Self.pending }
    func assemble(userID: Int64, hash: String, chunkCount: Int) throws(BlobStoreError) -> any StagedContent { throw Self.pending }
    func removeUpload(userID: Int64, hash: String) throws(BlobStoreError) {}
    func removeContent(userID: Int64, hash: String) throws(BlobStoreError) {}
    func removeAbandonedFiles(olderThanSeconds age: Int) throws(BlobStoreError) -> Int { 0 }
    func withRemovalsAllowed<T>(_ body: () throws -> T) throws -> T? { try body() }
}
