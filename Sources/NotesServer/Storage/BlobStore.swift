import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Where attachment bytes live: contents stored once per user by SHA-256, and the chunks of
/// uploads in progress.
///
/// The database says *which* contents a user holds (`ContentStore`, table `contents`); a blob
/// store keeps the bytes. The SQLite backend keeps them in a content-addressed directory beside
/// the database (`FileBlobStore`); a PostgreSQL backend would keep them in its database, so every
/// server sees them. Per user, so one user's upload cannot reveal whether another holds a file.
protocol BlobStore: Sendable {
    /// The stored content, opened for reading, or nil when this store has none under `hash`.
    func openContent(userID: Int64, hash: String) throws(BlobStoreError) -> ContentFile?

    /// A place to receive chunk `index` of `upload` (see `ChunkSink`). A chunk already received
    /// is not stored again: its bytes are only checked.
    func makeChunkSink(for upload: UploadState, userID: Int64, index: Int) throws(BlobStoreError) -> any ChunkSink

    /// A place to receive a whole content `hash` sent in one request, stored as the content
    /// itself with no upload in between: `seal` checks its bytes against `hash` and makes them
    /// durable, `keep` stores them as the content of `hash` (fast, for inside the database's
    /// writer, just before the `contents` row that claims them). One pass over the bytes.
    func makeContentSink(userID: Int64, hash: String) throws(BlobStoreError) -> any ChunkSink

    /// Makes the bytes of contents `check`ed but not yet flushed durable, all of them at once
    /// (slow: call it before taking any lock). Nothing for a store whose `check` leaves nothing
    /// to flush (its commit is what makes a content durable).
    func makeDurable(_ sinks: [any ChunkSink]) throws(BlobStoreError)

    /// Keeps several contents made durable (`makeDurable`, or each `seal`ed) as `keep` would
    /// keep each, inside the caller's transaction; a store may make their moves durable together.
    func keep(_ sinks: [any ChunkSink]) throws(BlobStoreError)

    /// Indices of the chunks of the upload of `hash` stored so far, ascending.
    func receivedChunks(userID: Int64, hash: String) throws(BlobStoreError) -> [Int]

    /// The whole content of `upload`, every chunk received, staged and hashed (the caller checks
    /// the hash before `commit`). The file store renames its staged file and reads it only when
    /// the chunks could not be hashed as they arrived; PostgreSQL joins its chunk rows.
    func stage(_ upload: UploadState, userID: Int64) throws(BlobStoreError) -> any StagedContent

    /// Removes the upload of `hash` and every chunk of it (nothing if there is none).
    func removeUpload(userID: Int64, hash: String) throws(BlobStoreError)

    /// Removes stored content (nothing if there is none).
    func removeContent(userID: Int64, hash: String) throws(BlobStoreError)

    /// Removes files left half-written (a crash, a killed server) more than `age` seconds ago.
    func removeAbandonedFiles(olderThanSeconds age: Int) throws(BlobStoreError) -> Int

    /// Removes stored contents no row names (`isReferenced` false for their user and hash) and
    /// that were stored more than `age` seconds ago: bytes put in place before a row that never
    /// committed (a crash, a killed server). Called under the database's writer. Nothing for a
    /// store whose contents are rows themselves.
    func removeUnreferencedContents(olderThanSeconds age: Int, isReferenced: (Int64, String) throws -> Bool) throws -> Int

    /// Runs `body` unless a backup is copying the store right now (then returns nil): removals
    /// happen inside it, so a backup never misses content its database copy refers to.
    func withRemovalsAllowed<T>(_ body: () throws -> T) throws -> T?

    /// Checks that the store can be reached and written now (the readiness probe); cheap, and
    /// throws what stands in the way.
    func checkReachable() throws(BlobStoreError)
}

/// An upload chunk (or a whole content, `makeContentSink`) being received: written as it
/// arrives, checked, then kept or dropped.
protocol ChunkSink: RequestBodySink {
    /// Bytes written so far.
    var byteCount: Int { get }
    /// Checks the chunk is exactly `length` bytes whose SHA-256 is `digest` and makes it
    /// durable; otherwise removes it and returns false. Slow (an fsync): call it before
    /// taking any lock.
    func seal(length: Int, digest: [UInt8]) throws(BlobStoreError) -> Bool
    /// Checks as `seal` does but may leave the bytes to be flushed by `BlobStore.makeDurable`
    /// together with others (a batch of contents); otherwise removes them and returns false.
    func check(length: Int, digest: [UInt8]) throws(BlobStoreError) -> Bool
    /// Moves a sealed chunk into the upload, or a sealed content into the store: fast (a
    /// rename, or an insert into the caller's transaction), for inside the database's writer.
    func keep() throws(BlobStoreError)
}

extension BlobStore {
    /// A store inside the database is reachable whenever the database is.
    func checkReachable() throws(BlobStoreError) {}

    func makeDurable(_ sinks: [any ChunkSink]) throws(BlobStoreError) {}

    func removeUnreferencedContents(olderThanSeconds age: Int, isReferenced: (Int64, String) throws -> Bool) throws -> Int { 0 }

    func keep(_ sinks: [any ChunkSink]) throws(BlobStoreError) {
        for sink in sinks { try sink.keep() }
    }
}

extension ChunkSink {
    /// `seal`: a sink whose check is also what makes it durable (a database's commit).
    func check(length: Int, digest: [UInt8]) throws(BlobStoreError) -> Bool {
        try seal(length: length, digest: digest)
    }
}

/// A whole content joined from its chunks, not yet stored: `commit()` moves it into place,
/// `discard()` (or dropping it) removes it.
protocol StagedContent: AnyObject, Sendable {
    /// SHA-256 hex of the joined bytes.
    var hash: String { get }
    var size: Int { get }
    /// Stores it as the content of `hash` for its user: a rename of a file already flushed to
    /// disk, or an insert into the caller's transaction, so it is fast enough for inside the
    /// database's writer.
    func commit() throws(BlobStoreError)
    func discard()
}

/// Stored content opened for reading: a descriptor the HTTP layer sends from, and its size.
/// Whoever gets one either hands the descriptor on (`ResponseFile`) or calls `close()`.
struct ContentFile: Sendable {
    let descriptor: Int32
    let size: Int64

    func close() {
        #if canImport(Glibc)
        _ = Glibc.close(descriptor)
        #elseif canImport(Darwin)
        _ = Darwin.close(descriptor)
        #endif
    }
}

/// A blob store operation that failed in the file system or its backend.
struct BlobStoreError: Error, CustomStringConvertible {
    /// What was being done, such as "write an upload chunk".
    let operation: String
    /// The `errno` value, when the file system reported one.
    let code: Int32
    /// True when the disk (or the user's file system quota) is full: a 507, not a bug.
    var isFull: Bool { code == 28 /* ENOSPC */ || code == 122 /* EDQUOT */ }
    /// True when another request holds what this one needed (it is still sending the same
    /// upload chunk): retrying shortly succeeds, so a 503 with `Retry-After`, not a bug.
    var isBusy: Bool { code == 16 /* EBUSY */ }
    /// True when the store could not be reached, failed or was too slow (an object store): a
    /// retry later may succeed, so a 503 with `Retry-After`, not a bug.
    var isUnavailable: Bool { code == Self.unavailableCode }

    /// The code of `isUnavailable` (`EAGAIN`).
    static let unavailableCode: Int32 = 11

    init(operation: String, code: Int32) {
        self.operation = operation
        self.code = code
        ContentStoreErrorCounts.count(self)
    }

    var description: String { "could not \(operation) (errno \(code))" }
}
