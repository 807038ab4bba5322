import Foundation
import NotesCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The PostgreSQL backend's content store: attachment bytes in the database itself, so every
/// server on it sees every content, and an upload begun on one server resumes on another.
///
/// Bytes are kept in rows of at most `pieceBytes` (tables `upload_chunks` and `content_chunks`,
/// PostgreSQL migration 13, which this type owns), and they pass through this process one piece
/// at a time, by way of a file with no name on disk (`UnlinkedFile`), never whole in memory:
/// - an upload chunk is written to such a file as it arrives and hashed; `seal` checks it and
///   inserts its pieces in one transaction: acknowledged means committed;
/// - `assemble` reads an upload's pieces in one snapshot, hashing them, and when they hash to the
///   content's name copies them (inside the database, in that same snapshot) into
///   `content_chunks`: the bytes stored are exactly the bytes checked;
/// - `openContent` copies a content's pieces into such a file and hands over its descriptor,
///   which the HTTP layer sends from (ranges included) after the database connection went back.
///
/// The `contents` row (`ContentStore`'s) is what makes a content exist; two triggers of migration
/// 13 tie it to its bytes in the database: it cannot be inserted before its pieces are all there,
/// and its deletion deletes them in the same transaction. So this store needs no lock around
/// removals (`withRemovalsAllowed` just runs), and `pg_dump` copies rows and bytes in one snapshot.
///
/// Every method runs a short transaction of its own on a connection from `pool`; called inside a
/// transaction the caller holds on the same pool, it gets that connection again (the pool lends a
/// thread the connection it already holds) and its transaction becomes a savepoint of the caller's.
struct PostgresBlobStore: BlobStore {
    /// The most bytes one row holds: a size PostgreSQL stores out of line without fuss, and what
    /// this process holds of a content at any moment (twice, while libpq decodes it).
    static let pieceBytes = 1 << 20

    let pool: PostgresPool
    /// Where the nameless files go: a disk-backed folder with room for the largest attachment
    /// times the downloads in flight.
    let temporaryFolder: String
    let clock: ServerClock

    /// - Parameters:
    ///   - pool: connections to the server's database, migrated to version 13 or later.
    ///   - temporaryFolder: see `temporaryFolder`; by default `$TMPDIR`, else `/var/tmp`.
    init(pool: PostgresPool, temporaryFolder: String = PostgresBlobStore.defaultTemporaryFolder(), clock: ServerClock = ServerClock()) {
        self.pool = pool
        self.temporaryFolder = temporaryFolder
        self.clock = clock
    }

    /// `$TMPDIR` when set, else `/var/tmp` (on disk, where `/tmp` is often memory).
    static func defaultTemporaryFolder() -> String {
        let environment = ProcessInfo.processInfo.environment["TMPDIR"] ?? ""
        return environment.isEmpty ? "/var/tmp" : environment
    }

    func openContent(userID: Int64, hash: String) throws(BlobStoreError) -> ContentFile? {
        try Self.mapping("read stored content") {
            // One snapshot for the whole copy: a purge that commits meanwhile cannot cut it short.
            try pool.transaction(isolation: .repeatableRead, readOnly: true) { db -> ContentFile? in
                let file = try UnlinkedFile(in: temporaryFolder)
                guard try Self.copyContent(db, userID: userID, hash: hash, into: { bytes in
                    guard bytes.withUnsafeBytes({ file.append($0) }) else {
                        throw BlobStoreError(operation: "write stored content to a temporary file in \(temporaryFolder)", code: errno)
                    }
                }) != nil else { return nil }
                return ContentFile(descriptor: try file.takeDescriptor(), size: Int64(file.size))
            }
        }
    }

    func makeChunkSink(for upload: UploadState, userID: Int64, index: Int) throws(BlobStoreError) -> any ChunkSink {
        try makeChunkSink(userID: userID, hash: upload.hash, index: index)
    }

    /// A place to receive chunk `index` of the upload of `hash`: a row of its own once kept.
    func makeChunkSink(userID: Int64, hash: String, index: Int) throws(BlobStoreError) -> any ChunkSink {
        PostgresChunkSink(store: self, userID: userID, hash: hash, index: index, file: try UnlinkedFile(in: temporaryFolder))
    }

    func makeContentSink(userID: Int64, hash: String) throws(BlobStoreError) -> any ChunkSink {
        PostgresContentSink(store: self, userID: userID, hash: hash, file: try UnlinkedFile(in: temporaryFolder))
    }

    func receivedChunks(userID: Int64, hash: String) throws(BlobStoreError) -> [Int] {
        try Self.mapping("list the received chunks of an upload") {
            try pool.withConnection { db in
                try db.query("SELECT DISTINCT chunk FROM upload_chunks WHERE user_id = ? AND hash = ? ORDER BY chunk",
                             [userID, hash]) { $0.int(0) }
            }
        }
    }

    func stage(_ upload: UploadState, userID: Int64) throws(BlobStoreError) -> any StagedContent {
        try assemble(userID: userID, hash: upload.hash, chunkCount: upload.chunkCount)
    }

    /// Joins chunk rows `0..<chunkCount` into one staged content, hashing it as it goes.
    func assemble(userID: Int64, hash: String, chunkCount: Int) throws(BlobStoreError) -> any StagedContent {
        try Self.mapping("join an upload's chunks") {
            // REPEATABLE READ: the pieces hashed and the pieces copied are read from one snapshot,
            // so a chunk removed or sent again meanwhile cannot slip in between.
            try pool.transaction(isolation: .repeatableRead) { db -> PostgresStagedContent in
                let pieces = try db.query("""
                    SELECT chunk, piece FROM upload_chunks WHERE user_id = ? AND hash = ? AND chunk < ? ORDER BY chunk, piece
                    """, [userID, hash, chunkCount]) { (chunk: $0.int(0), piece: $0.int(1)) }
                let chunks = Set(pieces.map(\.chunk))
                if let missing = (0..<chunkCount).first(where: { !chunks.contains($0) }) {
                    throw BlobStoreError(operation: "read chunk \(missing) of an upload", code: ENOENT)
                }
                var hasher = SHA256Hasher()
                var size = 0
                for (chunk, piece) in pieces {
                    let bytes = try db.first("SELECT bytes FROM upload_chunks WHERE user_id = ? AND hash = ? AND chunk = ? AND piece = ?",
                                             [userID, hash, chunk, piece]) { $0.bytes(0) } ?? []
                    hasher.update(bytes)
                    size += bytes.count
                }
                let digest = Hex.encode(hasher.finalize())
                guard digest == hash else {
                    return PostgresStagedContent(store: self, userID: userID, hash: digest, size: size, wrotePieces: false)
                }
                // Pieces of this hash already there are the same bytes (checked when written).
                let present = try db.scalarInt("SELECT count(*) FROM content_chunks WHERE user_id = ? AND hash = ? AND piece = 0",
                                               [userID, hash]) ?? 0
                if present == 0 {
                    try db.run("""
                        INSERT INTO content_chunks (user_id, hash, piece, bytes, stored_at)
                        SELECT user_id, hash, row_number() OVER (ORDER BY chunk, piece) - 1, bytes, ?
                        FROM upload_chunks WHERE user_id = ? AND hash = ? AND chunk < ?
                        ON CONFLICT DO NOTHING
                        """, clock.now(), userID, hash, chunkCount)
                }
                return PostgresStagedContent(store: self, userID: userID, hash: digest, size: size, wrotePieces: present == 0)
            }
        }
    }

    func removeUpload(userID: Int64, hash: String) throws(BlobStoreError) {
        try Self.mapping("remove an upload") {
            try pool.withConnection { db in
                try db.run("DELETE FROM upload_chunks WHERE user_id = ? AND hash = ?", userID, hash)
            }
        }
    }

    /// Removes the bytes of `hash` unless a `contents` row names them. A purge needs no call:
    /// deleting the row deleted them (migration 13's trigger).
    func removeContent(userID: Int64, hash: String) throws(BlobStoreError) {
        try Self.mapping("remove stored content") {
            try pool.transaction { db in try Self.removeUnclaimed(db, userID: userID, hash: hash) }
        }
    }

    /// Removes contents assembled more than `age` seconds ago whose `contents` row never
    /// committed (the server stopped in between); returns how many. Uploads need no sweep: their
    /// chunks go with their `uploads` row, and nothing half-written outlives a transaction.
    func removeAbandonedFiles(olderThanSeconds age: Int) throws(BlobStoreError) -> Int {
        let cutoff = clock.now() - Int64(age) * 1000
        return try Self.mapping("remove abandoned contents") {
            try pool.transaction { db in
                let doomed = try db.query("""
                    SELECT user_id, hash FROM content_chunks c WHERE piece = 0 AND stored_at < ?
                      AND NOT EXISTS (SELECT 1 FROM contents k WHERE k.user_id = c.user_id AND k.hash = c.hash)
                    """, [cutoff]) { (userID: $0.int64(0), hash: $0.string(1)) }
                for content in doomed { try Self.removeUnclaimed(db, userID: content.userID, hash: content.hash) }
                return doomed.count
            }
        }
    }

    /// Runs `body` at once: a `pg_dump` reads rows and bytes in one snapshot, so removals never
    /// need to wait for a backup.
    func withRemovalsAllowed<T>(_ body: () throws -> T) throws -> T? {
        try body()
    }

    // MARK: - Pieces

    /// Inserts chunk `index` of an upload, read from `file`, in one transaction; false when the
    /// chunk was there already (sent twice: the first, checked copy stays).
    /// - Throws: `BlobStoreError` (`ENOENT`) when the upload was removed meanwhile.
    func storeChunk(userID: Int64, hash: String, index: Int, from file: UnlinkedFile) throws(BlobStoreError) -> Bool {
        do {
            return try pool.transaction { db in
                if try db.scalarInt("SELECT count(*) FROM upload_chunks WHERE user_id = ? AND hash = ? AND chunk = ?",
                                    [userID, hash, index]) ?? 0 > 0 {
                    return false
                }
                try file.forEachPiece(of: Self.pieceBytes) { piece, bytes in
                    try db.run("INSERT INTO upload_chunks (user_id, hash, chunk, piece, bytes) VALUES (?, ?, ?, ?, ?)",
                               userID, hash, index, piece, bytes)
                }
                return true
            }
        } catch let error as PostgresError where error.sqlState == "23503" {
            throw BlobStoreError(operation: "store chunk \(index) of an upload that was removed meanwhile", code: ENOENT)
        } catch {
            throw Self.converting(error, operation: "store an upload chunk")
        }
    }

    /// Inserts the pieces of content `hash`, read from `file` (checked against `hash` by the
    /// caller), in a transaction: the caller's, when it holds one on this pool (the `contents`
    /// row it then inserts claims them in the same commit). Pieces of `hash` already there
    /// (another upload's, unclaimed) are the same bytes and stay.
    func storeContentPieces(userID: Int64, hash: String, from file: UnlinkedFile) throws(BlobStoreError) {
        try Self.mapping("store a content") {
            try pool.transaction { db in
                let storedAt = clock.now()
                try file.forEachPiece(of: Self.pieceBytes) { piece, bytes in
                    try db.run("""
                        INSERT INTO content_chunks (user_id, hash, piece, bytes, stored_at) VALUES (?, ?, ?, ?, ?)
                        ON CONFLICT DO NOTHING
                        """, userID, hash, piece, bytes, storedAt)
                }
            }
        }
    }

    /// Removes the chunk `index` of an upload (a sealed chunk its upload no longer wants).
    func removeChunk(userID: Int64, hash: String, index: Int) throws(BlobStoreError) {
        try Self.mapping("remove an upload chunk") {
            try pool.withConnection { db in
                try db.run("DELETE FROM upload_chunks WHERE user_id = ? AND hash = ? AND chunk = ?", userID, hash, index)
            }
        }
    }

    /// Deletes the pieces of `hash` in `db`'s transaction unless a `contents` row names them.
    static func removeUnclaimed(_ db: PostgresConnection, userID: Int64, hash: String) throws {
        try db.run("""
            DELETE FROM content_chunks c WHERE user_id = ? AND hash = ?
              AND NOT EXISTS (SELECT 1 FROM contents k WHERE k.user_id = c.user_id AND k.hash = c.hash)
            """, userID, hash)
    }

    /// Hands the pieces of stored content `hash` to `body` in order, one at a time; returns the
    /// content's size, or nil when none is stored.
    /// - Throws: `BlobStoreError` (`EIO`) when the pieces are not numbered 0, 1, 2, ...
    @discardableResult
    static func copyContent(_ db: PostgresConnection, userID: Int64, hash: String, into body: ([UInt8]) throws -> Void) throws -> Int? {
        let pieces = try db.query("SELECT piece FROM content_chunks WHERE user_id = ? AND hash = ? ORDER BY piece",
                                  [userID, hash]) { $0.int(0) }
        guard !pieces.isEmpty else { return nil }
        guard pieces.last == pieces.count - 1 else {
            throw BlobStoreError(operation: "read stored content \(hash): pieces are missing", code: EIO)
        }
        var size = 0
        for piece in pieces {
            let bytes = try db.first("SELECT bytes FROM content_chunks WHERE user_id = ? AND hash = ? AND piece = ?",
                                     [userID, hash, piece]) { $0.bytes(0) } ?? []
            try body(bytes)
            size += bytes.count
        }
        return size
    }

    /// Stores the content read from `descriptor` (to its end) as `hash` of `userID` inside `db`'s
    /// transaction, piece by piece, for `migrate-data`; the caller then inserts its `contents`
    /// row, which the database accepts only once the pieces add up to its size.
    /// - Returns: the bytes' size and SHA-256 (hex), for the caller to compare with `hash`.
    static func storeContent(_ db: PostgresConnection, userID: Int64, hash: String, readingFrom descriptor: Int32,
                             storedAt: Int64) throws -> (size: Int, digest: String) {
        var hasher = SHA256Hasher()
        var size = 0
        var piece = 0
        var buffer = [UInt8](repeating: 0, count: pieceBytes)
        while true {
            var filled = 0
            while filled < pieceBytes {
                let got = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + filled, pieceBytes - filled) }
                if got == 0 { break }
                guard got > 0 else {
                    if errno == EINTR { continue }
                    throw BlobStoreError(operation: "read content \(hash)", code: errno)
                }
                filled += got
            }
            // An empty content is one empty piece: zero pieces means "none stored".
            guard filled > 0 || piece == 0 else { break }
            let bytes = Array(buffer[..<filled])
            try db.run("INSERT INTO content_chunks (user_id, hash, piece, bytes, stored_at) VALUES (?, ?, ?, ?, ?)",
                       userID, hash, piece, bytes, storedAt)
            hasher.update(bytes)
            size += filled
            piece += 1
            if filled < pieceBytes { break }
        }
        return (size, Hex.encode(hasher.finalize()))
    }

    /// The size and SHA-256 (hex) of stored content `hash` read back from `db`, or nil when none
    /// is stored (`migrate-data`'s verification).
    static func digest(_ db: PostgresConnection, userID: Int64, hash: String) throws -> (size: Int, digest: String)? {
        var hasher = SHA256Hasher()
        guard let size = try copyContent(db, userID: userID, hash: hash, into: { hasher.update($0) }) else { return nil }
        return (size, Hex.encode(hasher.finalize()))
    }

    // MARK: - Errors

    /// Runs `body`, reporting a database failure as a `BlobStoreError` that names `operation`
    /// and PostgreSQL's reason (a full disk as `ENOSPC`, so the client gets a 507).
    @discardableResult
    static func mapping<T>(_ operation: String, _ body: () throws -> T) throws(BlobStoreError) -> T {
        do {
            return try body()
        } catch {
            throw converting(error, operation: operation)
        }
    }

    static func converting(_ error: any Error, operation: String) -> BlobStoreError {
        switch error {
        case let error as BlobStoreError:
            return error
        case let error as PostgresError:
            return BlobStoreError(operation: "\(operation) (\(error))", code: error.sqlState == "53100" ? ENOSPC : EIO)
        default:
            return BlobStoreError(operation: "\(operation) (\(error))", code: EIO)
        }
    }
}
