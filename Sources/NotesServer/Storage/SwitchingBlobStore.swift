import NotesCore
import Synchronization

/// The content store a running server uses when the database may record another
/// (`ContentStoreRecord`, written by `notes-server migrate-content`): the recorded store once
/// there is a record, the server's own `--content-store` until then. `refresh` reads the record
/// again (at start, then every few seconds, `ServerRunner`), so every server switches within
/// seconds of the migration recording the switch, without a restart (docs/architecture.md §6.3).
///
/// While the record names a previous store (a migration copying what was written there during
/// the switch), reads fall back to it and removals reach it too; every write goes to the
/// current store. A sink or staged content made before a switch finishes in the store that
/// made it: each store's batch calls take only their own sinks.
final class SwitchingBlobStore: BlobStore {
    private struct Stores {
        var record: ContentStoreRecord?
        var current: any BlobStore
        var previous: (any BlobStore)?
    }

    private let configured: any BlobStore
    private let make: @Sendable (ContentStoreAddress) throws -> any BlobStore
    private let stores: Mutex<Stores>

    /// - Parameters:
    ///   - configured: the store of the server's own options, used while nothing is recorded.
    ///   - make: the store at a recorded address (with this server's S3 credentials); throws
    ///     what stands in the way, and the store then answers as unreachable.
    init(configured: any BlobStore, make: @escaping @Sendable (ContentStoreAddress) throws -> any BlobStore) {
        self.configured = configured
        self.make = make
        stores = Mutex(Stores(record: nil, current: configured, previous: nil))
    }

    /// The record in use now (nil: the server's own `--content-store`).
    var record: ContentStoreRecord? { stores.withLock { $0.record } }

    /// The store writes go to now.
    var current: any BlobStore { stores.withLock { $0.current } }

    /// Takes `record` (read from the database) as where contents are; nothing when it is the
    /// record in use. - Returns: whether the store changed.
    @discardableResult
    func use(_ record: ContentStoreRecord?) -> Bool {
        guard record != stores.withLock({ $0.record }) else { return false }
        var next = Stores(record: record, current: configured, previous: nil)
        if let record {
            next.current = store(at: record.current)
            next.previous = record.previous.map(store(at:))
        }
        stores.withLock { $0 = next }
        return true
    }

    private func store(at address: ContentStoreAddress) -> any BlobStore {
        do {
            return try make(address)
        } catch {
            return UnreachableBlobStore(reason: "open the content store \(address): \(error)")
        }
    }

    private var both: (current: any BlobStore, previous: (any BlobStore)?) {
        stores.withLock { ($0.current, $0.previous) }
    }

    // MARK: - BlobStore

    func openContent(userID: Int64, hash: String) throws(BlobStoreError) -> ContentFile? {
        let (current, previous) = both
        if let file = try current.openContent(userID: userID, hash: hash) { return file }
        return try previous?.openContent(userID: userID, hash: hash)
    }

    func makeChunkSink(for upload: UploadState, userID: Int64, index: Int) throws(BlobStoreError) -> any ChunkSink {
        try current.makeChunkSink(for: upload, userID: userID, index: index)
    }

    func makeContentSink(userID: Int64, hash: String) throws(BlobStoreError) -> any ChunkSink {
        try current.makeContentSink(userID: userID, hash: hash)
    }

    func makeDurable(_ sinks: [any ChunkSink]) throws(BlobStoreError) {
        let (current, previous) = both
        try current.makeDurable(sinks)
        try previous?.makeDurable(sinks)
    }

    func keep(_ sinks: [any ChunkSink]) throws(BlobStoreError) {
        try current.keep(sinks)
    }

    func receivedChunks(userID: Int64, hash: String) throws(BlobStoreError) -> [Int] {
        try current.receivedChunks(userID: userID, hash: hash)
    }

    func stage(_ upload: UploadState, userID: Int64) throws(BlobStoreError) -> any StagedContent {
        try current.stage(upload, userID: userID)
    }

    func removeUpload(userID: Int64, hash: String) throws(BlobStoreError) {
        let (current, previous) = both
        try current.removeUpload(userID: userID, hash: hash)
        try previous?.removeUpload(userID: userID, hash: hash)
    }

    func removeContent(userID: Int64, hash: String) throws(BlobStoreError) {
        let (current, previous) = both
        try current.removeContent(userID: userID, hash: hash)
        try previous?.removeContent(userID: userID, hash: hash)
    }

    func removeAbandonedFiles(olderThanSeconds age: Int) throws(BlobStoreError) -> Int {
        try current.removeAbandonedFiles(olderThanSeconds: age)
    }

    func removeUnreferencedContents(olderThanSeconds age: Int,
                                    isReferenced: (Int64, String) throws -> Bool) throws -> Int {
        // Only the current store: the previous one is left to the operator once the migration ends.
        try current.removeUnreferencedContents(olderThanSeconds: age, isReferenced: isReferenced)
    }

    func withRemovalsAllowed<T>(_ body: () throws -> T) throws -> T? {
        let (current, previous) = both
        guard let previous else { return try current.withRemovalsAllowed(body) }
        return try current.withRemovalsAllowed { try previous.withRemovalsAllowed(body) } ?? nil
    }

    func checkReachable() throws(BlobStoreError) {
        try current.checkReachable()
    }
}

/// The store at a recorded address this server cannot open (no S3 credentials, say): every
/// attachment request answers 503 until it can, and nothing goes to a store the database no
/// longer names.
private struct UnreachableBlobStore: BlobStore {
    let reason: String

    private var failure: BlobStoreError { BlobStoreError(operation: reason, code: BlobStoreError.unavailableCode) }

    func openContent(userID: Int64, hash: String) throws(BlobStoreError) -> ContentFile? { throw failure }
    func makeChunkSink(for upload: UploadState, userID: Int64, index: Int) throws(BlobStoreError) -> any ChunkSink { throw failure }
    func makeContentSink(userID: Int64, hash: String) throws(BlobStoreError) -> any ChunkSink { throw failure }
    func receivedChunks(userID: Int64, hash: String) throws(BlobStoreError) -> [Int] { throw failure }
    func stage(_ upload: UploadState, userID: Int64) throws(BlobStoreError) -> any StagedContent { throw failure }
    func removeUpload(userID: Int64, hash: String) throws(BlobStoreError) { throw failure }
    func removeContent(userID: Int64, hash: String) throws(BlobStoreError) { throw failure }
    func removeAbandonedFiles(olderThanSeconds age: Int) throws(BlobStoreError) -> Int { throw failure }
    func withRemovalsAllowed<T>(_ body: () throws -> T) throws -> T? { throw failure }
    func checkReachable() throws(BlobStoreError) { throw failure }
}
