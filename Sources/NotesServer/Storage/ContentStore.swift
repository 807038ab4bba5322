import NotesCore

/// Attachment content of every user: which contents each holds, the holds that keep reported
/// contents from being purged, resumable uploads, and the purge of what nothing refers to.
///
/// Owns the tables `contents`, `content_holds` and `uploads`; the bytes are in `blobs`. A
/// content is stored first (file durable and in place), then recorded (row committed), and
/// removed in the other order, always while holding the database's writer, so a row never
/// names a missing file.
struct ContentStore: Sendable {
    let database: ServerDatabase
    let blobs: any BlobStore
    let clock: ServerClock
    let limits: AttachmentLimits
    /// How old a stored content no row names must be before the purge removes it
    /// (`BlobStore.removeUnreferencedContents`): far longer than storing one and committing its row takes.
    var orphanGraceSeconds = Int(staleUploadMilliseconds / 1000)

    /// How long a content reported present (or just uploaded) is kept from purging, so the
    /// batch that refers to it can commit.
    static let holdMilliseconds: Int64 = 3_600_000
    /// Unfinished uploads untouched this long are removed by the purge.
    static let staleUploadMilliseconds: Int64 = 86_400_000

    /// The asked hashes this user's store lacks, in the order asked (each once). Every other
    /// asked hash is present and now held for `holdMilliseconds`.
    func missing(userID: Int64, hashes: [String]) throws -> [String] {
        let expires = clock.now() + Self.holdMilliseconds
        return try database.write { db in
            var seen = Set<String>()
            var missing: [String] = []
            for hash in hashes where seen.insert(hash).inserted {
                if try Self.size(db, userID: userID, hash: hash) == nil {
                    missing.append(hash)
                } else {
                    try hold(db, userID: userID, hash: hash, until: expires)
                }
            }
            return missing
        }
    }

    /// Opens (or finds) the upload of `hash`, `size` bytes: nothing is stored yet, but the size
    /// is checked against the largest attachment and reserved against the user's quota.
    /// - Returns: its state, and whether it was opened now (201) rather than found (200). A
    ///   content already stored answers with every chunk received (and is held).
    /// - Throws: `ContentStoreError.tooLarge` or `.quotaExceeded` before anything is stored.
    func openUpload(userID: Int64, hash: String, size: Int) throws -> (state: UploadState, created: Bool) {
        guard size <= limits.maxAttachmentBytes else {
            throw ContentStoreError.tooLarge(limit: limits.maxAttachmentBytes, size: size)
        }
        let chunkSize = limits.uploadChunkBytes
        let now = clock.now()
        let outcome: (state: UploadState, created: Bool, restarted: Bool) = try database.write { db in
            if let stored = try Self.size(db, userID: userID, hash: hash) {
                try hold(db, userID: userID, hash: hash, until: now + Self.holdMilliseconds)
                let count = UploadState.chunkCount(size: stored, chunkSize: chunkSize)
                return (UploadState(hash: hash, size: stored, chunkSize: chunkSize, received: Array(0..<count)), false, false)
            }
            let open = try db.first("SELECT size, chunk_size FROM uploads WHERE user_id = ? AND hash = ?", [userID, hash]) {
                (size: $0.int(0), chunkSize: $0.int(1))
            }
            if let open, open.size == size {
                try db.run("UPDATE uploads SET updated_at = ? WHERE user_id = ? AND hash = ?", now, userID, hash)
                return (UploadState(hash: hash, size: size, chunkSize: open.chunkSize, received: []), false, false)
            }
            if let quota = limits.quotaBytes {
                let used = try Self.usage(db, userID: userID, excludingUpload: hash)
                guard used + size <= quota else { throw ContentStoreError.quotaExceeded(quota: quota, used: used, size: size) }
            }
            try db.run("""
                INSERT INTO uploads (user_id, hash, size, chunk_size, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (user_id, hash) DO UPDATE SET size = excluded.size, chunk_size = excluded.chunk_size,
                    created_at = excluded.created_at, updated_at = excluded.updated_at
                """, userID, hash, size, chunkSize, now, now)
            if open != nil { try blobs.removeUpload(userID: userID, hash: hash) }
            return (UploadState(hash: hash, size: size, chunkSize: chunkSize, received: []), true, open != nil)
        }
        var state = outcome.state
        if !outcome.created && state.received.isEmpty {
            state.received = try received(userID: userID, hash: hash, state: state)
        }
        return (state, outcome.created)
    }

    /// The open upload of `hash`, or nil when there is none.
    func upload(userID: Int64, hash: String) throws -> UploadState? {
        guard let open = try database.read({ db in
            try db.first("SELECT size, chunk_size FROM uploads WHERE user_id = ? AND hash = ?", [userID, hash]) {
                (size: $0.int(0), chunkSize: $0.int(1))
            }
        }) else { return nil }
        let state = UploadState(hash: hash, size: open.size, chunkSize: open.chunkSize, received: [])
        return UploadState(hash: hash, size: open.size, chunkSize: open.chunkSize,
                           received: try received(userID: userID, hash: hash, state: state))
    }

    private func received(userID: Int64, hash: String, state: UploadState) throws -> [Int] {
        try blobs.receivedChunks(userID: userID, hash: hash).filter { $0 < state.chunkCount }
    }

    /// The exact length chunk `index` of an open upload must have.
    /// - Throws: `ContentStoreError.uploadNotFound`, `.chunkOutOfRange`.
    func expectedChunkLength(userID: Int64, hash: String, index: Int) throws -> Int {
        try chunkTarget(userID: userID, hash: hash, index: index).length
    }

    /// The open upload chunk `index` belongs to (`received` left empty), and the exact length
    /// the chunk must have.
    /// - Throws: `ContentStoreError.uploadNotFound`, `.chunkOutOfRange`.
    func chunkTarget(userID: Int64, hash: String, index: Int) throws -> (upload: UploadState, length: Int) {
        guard let state = try database.read({ db in
            try db.first("SELECT size, chunk_size FROM uploads WHERE user_id = ? AND hash = ?", [userID, hash]) {
                UploadState(hash: hash, size: $0.int(0), chunkSize: $0.int(1), received: [])
            }
        }) else { throw ContentStoreError.uploadNotFound }
        guard index >= 0, index < state.chunkCount else { throw ContentStoreError.chunkOutOfRange(index: index, count: state.chunkCount) }
        return (state, index == state.chunkCount - 1 ? state.size - index * state.chunkSize : state.chunkSize)
    }

    /// Keeps a received chunk if its length and digest are right; otherwise it is dropped.
    /// - Throws: `.chunkMismatch` for a wrong length or digest, `.uploadNotFound` when the
    ///   upload was removed meanwhile.
    func finishChunk(_ sink: any ChunkSink, userID: Int64, hash: String, index: Int, digest: [UInt8]) throws {
        let length = try expectedChunkLength(userID: userID, hash: hash, index: index)
        guard try sink.seal(length: length, digest: digest) else {
            throw ContentStoreError.chunkMismatch(index: index, expectedLength: length, receivedLength: sink.byteCount)
        }
        try database.write { db in
            // Under the writer, so a purge cannot remove the upload between the check and the move.
            guard try db.run("UPDATE uploads SET updated_at = ? WHERE user_id = ? AND hash = ?", clock.now(), userID, hash) == 1 else {
                sink.discard()
                throw ContentStoreError.uploadNotFound
            }
            try sink.keep()
        }
    }

    /// Stages the chunks of `hash` as one content, checks its SHA-256 and stores it.
    /// - Throws: `.incompleteUpload` naming missing chunks; `.contentMismatch` when the bytes
    ///   do not hash to `hash` (the upload is then discarded); `.uploadNotFound`.
    func complete(userID: Int64, hash: String) throws -> StoredContent {
        guard let state = try upload(userID: userID, hash: hash) else {
            if let size = try database.read({ db in try Self.size(db, userID: userID, hash: hash) }) {
                return StoredContent(hash: hash, size: size)  // a retried complete
            }
            throw ContentStoreError.uploadNotFound
        }
        let missing = Set(0..<state.chunkCount).subtracting(state.received)
        guard missing.isEmpty else { throw ContentStoreError.incompleteUpload(missing: missing.sorted()) }
        let staged = try blobs.stage(state, userID: userID)
        defer { staged.discard() }
        guard staged.hash == hash, staged.size == state.size else {
            try database.write { db in try db.run("DELETE FROM uploads WHERE user_id = ? AND hash = ?", userID, hash) }
            try blobs.removeUpload(userID: userID, hash: hash)
            throw ContentStoreError.contentMismatch
        }
        let now = clock.now()
        try database.write { db in
            try staged.commit()
            try db.run("""
                INSERT INTO contents (user_id, hash, size, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING
                """, userID, hash, state.size, now)
            try db.run("DELETE FROM uploads WHERE user_id = ? AND hash = ?", userID, hash)
            try hold(db, userID: userID, hash: hash, until: now + Self.holdMilliseconds)
        }
        try? blobs.removeUpload(userID: userID, hash: hash)
        return StoredContent(hash: hash, size: state.size)
    }

    /// Checks, from a request's head, that `size` more bytes of content sent whole may be
    /// stored: no larger than the largest attachment, and within the user's quota (counting
    /// every stored content and open upload but the upload of `hash`). Reserves nothing: the
    /// quota is checked again when the contents are stored (`storeWhole`).
    /// - Throws: `.tooLarge`, `.quotaExceeded`.
    func admitWhole(userID: Int64, hash: String?, size: Int) throws {
        guard size <= limits.maxAttachmentBytes else {
            throw ContentStoreError.tooLarge(limit: limits.maxAttachmentBytes, size: size)
        }
        guard let quota = limits.quotaBytes else { return }
        let used = try database.read { db in try Self.usage(db, userID: userID, excludingUpload: hash) }
        guard used + size <= quota else { throw ContentStoreError.quotaExceeded(quota: quota, used: used, size: size) }
    }

    /// Stores a content sent whole in one request (`PUT /v1/content/{hash}`, no larger than a
    /// chunk): `sink` (from `BlobStore.makeContentSink`) received the body; its bytes are checked
    /// against `hash` and made durable, then kept as the content itself, with no upload and no
    /// second pass over them. An upload of the same content left open is finished by it.
    /// - Returns: the content, and whether it was stored now (false: it already was).
    /// - Throws: `.contentMismatch` when the bytes are not `size` bytes hashing to `hash`
    ///   (nothing of them remains); `.quotaExceeded`.
    func storeWhole(_ sink: any ChunkSink, userID: Int64, hash: String, size: Int) throws -> (content: StoredContent, created: Bool) {
        guard try check(sink, hash: hash, size: size) else { throw ContentStoreError.contentMismatch }
        let created = try keepWhole([SealedContent(sink: sink, hash: hash, size: size)], userID: userID)
        return (StoredContent(hash: hash, size: size), created[0])
    }

    /// Checks that `sink` holds `size` bytes hashing to `hash`, leaving them to be made durable
    /// by `keepWhole` (together with the rest of their batch, if any); false (and the bytes
    /// dropped) when they do not.
    func check(_ sink: any ChunkSink, hash: String, size: Int) throws -> Bool {
        // The routes take `hash` through `contentHash()` or `ContentHash.isValid`: 64 hex digits.
        guard let digest = Hex.decode(hash), try sink.check(length: size, digest: digest) else {
            sink.discard()
            return false
        }
        return true
    }

    /// A content sent whole whose bytes `check` checked: what `keepWhole` stores.
    struct SealedContent {
        var sink: any ChunkSink
        var hash: String
        var size: Int
    }

    /// Stores checked contents of one user in one transaction: their bytes are made durable
    /// together first (one flush for the batch, before the writer is taken), then each not yet
    /// stored is kept by its blob store and recorded (and held, so the batch that refers to it
    /// can commit); each already stored is only held. The quota is checked for all of them
    /// before any is kept. Every content this answers for is durable when it returns.
    /// - Returns: for each content in order, whether it was stored now.
    /// - Throws: `.quotaExceeded` (nothing is stored); a failure of the blob store (nothing the
    ///   transaction kept remains).
    func keepWhole(_ contents: [SealedContent], userID: Int64) throws -> [Bool] {
        guard !contents.isEmpty else { return [] }
        try blobs.makeDurable(contents.map(\.sink))
        let now = clock.now()
        return try database.withWriter { db in
            var kept: [String] = []
            do {
                let outcome = try db.transaction { () throws -> (created: [Bool], finishedUploads: [String]) in
                    kept = []
                    var created: [Bool] = []
                    var fresh = Set<String>()
                    var adding = 0
                    for content in contents {
                        let new = try Self.size(db, userID: userID, hash: content.hash) == nil && fresh.insert(content.hash).inserted
                        created.append(new)
                        if new { adding += content.size }
                    }
                    if let quota = limits.quotaBytes, adding > 0 {
                        // Open uploads of these contents are finished by them: their reservations go.
                        var used = try Self.usage(db, userID: userID, excludingUpload: nil)
                        for hash in fresh {
                            used -= try db.scalarInt("SELECT size FROM uploads WHERE user_id = ? AND hash = ?", [userID, hash]).map(Int.init) ?? 0
                        }
                        guard used + adding <= quota else {
                            throw ContentStoreError.quotaExceeded(quota: quota, used: used, size: adding)
                        }
                    }
                    var finishedUploads: [String] = []
                    let storing = zip(contents, created).filter(\.1).map(\.0)
                    kept = storing.map(\.hash)  // before the moves: a failure midway removes those it made
                    try blobs.keep(storing.map(\.sink))
                    for (content, new) in zip(contents, created) {
                        if new {
                            // Another server on the same PostgreSQL may store the same bytes at once: one row either way.
                            try db.run("INSERT INTO contents (user_id, hash, size, created_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                                       userID, content.hash, content.size, now)
                            if try db.run("DELETE FROM uploads WHERE user_id = ? AND hash = ?", userID, content.hash) > 0 {
                                finishedUploads.append(content.hash)
                            }
                        }
                        try hold(db, userID: userID, hash: content.hash, until: now + Self.holdMilliseconds)
                    }
                    return (created, finishedUploads)
                }
                for hash in outcome.finishedUploads { try? blobs.removeUpload(userID: userID, hash: hash) }
                return outcome.created
            } catch {
                // Still the writer: no other upload can have stored these contents meanwhile.
                for hash in kept { try? blobs.removeContent(userID: userID, hash: hash) }
                throw error
            }
        }
    }

    /// The stored content `hash` of this user, opened for reading; nil when the user holds none.
    func open(userID: Int64, hash: String) throws -> ContentFile? {
        guard try database.read({ db in try Self.size(db, userID: userID, hash: hash) }) != nil else { return nil }
        return try blobs.openContent(userID: userID, hash: hash)
    }

    /// Bytes `userID` uses: stored contents plus the declared sizes of open uploads.
    func usage(userID: Int64) throws -> Int {
        try database.read { db in try Self.usage(db, userID: userID, excludingUpload: nil) }
    }

    /// Removes expired holds, contents no live entry, kept revision or hold refers to, and
    /// uploads untouched for `staleUploadMilliseconds`. Skipped (returns zeros) while a backup
    /// copies the store.
    @discardableResult
    func purge() throws -> (contents: Int, uploads: Int) {
        let now = clock.now()
        let removed: (contents: Int, uploads: Int)? = try blobs.withRemovalsAllowed {
            try database.withWriter { db in
                let doomed = try db.transaction { () throws -> (contents: [(Int64, String)], uploads: [(Int64, String)]) in
                    try db.run("DELETE FROM content_holds WHERE expires_at <= ?", now)
                    let contents = try db.query("""
                        SELECT user_id, hash FROM contents c
                        WHERE NOT EXISTS (SELECT 1 FROM notes n WHERE n.user_id = c.user_id AND n.kind = 'attachment'
                                              AND n.deleted = 0 AND n.hash = c.hash)
                          AND NOT EXISTS (SELECT 1 FROM revisions r WHERE r.user_id = c.user_id AND r.kind = 'attachment'
                                              AND r.deleted = 0 AND r.hash = c.hash)
                          AND NOT EXISTS (SELECT 1 FROM content_holds h WHERE h.user_id = c.user_id AND h.hash = c.hash)
                        """) { (userID: $0.int64(0), hash: $0.string(1)) }
                    for (userID, hash) in contents {
                        try db.run("DELETE FROM contents WHERE user_id = ? AND hash = ?", userID, hash)
                    }
                    let uploads = try db.query("SELECT user_id, hash FROM uploads WHERE updated_at < ?",
                                               [now - Self.staleUploadMilliseconds]) { (userID: $0.int64(0), hash: $0.string(1)) }
                    for (userID, hash) in uploads {
                        try db.run("DELETE FROM uploads WHERE user_id = ? AND hash = ?", userID, hash)
                    }
                    return (contents.map { ($0.userID, $0.hash) }, uploads.map { ($0.userID, $0.hash) })
                }
                // Rows first, then files, still holding the writer: no upload can store the same
                // content again in between, and a crash here leaves only unreferenced files.
                for (userID, hash) in doomed.contents { try blobs.removeContent(userID: userID, hash: hash) }
                for (userID, hash) in doomed.uploads { try blobs.removeUpload(userID: userID, hash: hash) }
                // Files a crash left half-written: a live upload writes a chunk in seconds, not a day.
                _ = try blobs.removeAbandonedFiles(olderThanSeconds: Int(Self.staleUploadMilliseconds / 1000))
                // Contents stored before a row that never committed. Not one an open upload may be
                // about to record (its chunks joined, or found already stored), nor one stored lately.
                _ = try blobs.removeUnreferencedContents(olderThanSeconds: orphanGraceSeconds) { userID, hash in
                    try Self.size(db, userID: userID, hash: hash) != nil
                        || db.scalarInt("SELECT 1 FROM uploads WHERE user_id = ? AND hash = ?", [userID, hash]) != nil
                }
                return (doomed.contents.count, doomed.uploads.count)
            }
        }
        return removed ?? (0, 0)
    }

    /// Forgets every content, hold and upload of `userID`, inside the caller's transaction (the
    /// account is being deleted; the caller removes the files once it committed).
    static func deleteAll(of userID: Int64, in db: some SQLConnection) throws {
        try db.run("DELETE FROM content_holds WHERE user_id = ?", userID)
        try db.run("DELETE FROM uploads WHERE user_id = ?", userID)
        try db.run("DELETE FROM contents WHERE user_id = ?", userID)
    }

    private func hold(_ db: some SQLConnection, userID: Int64, hash: String, until expires: Int64) throws {
        try db.run("""
            INSERT INTO content_holds (user_id, hash, expires_at) VALUES (?, ?, ?)
            ON CONFLICT (user_id, hash) DO UPDATE SET expires_at = \(db.greatest("content_holds.expires_at", "excluded.expires_at"))
            """, userID, hash, expires)
    }

    /// The size of content `hash` in `userID`'s store, or nil when it holds none.
    static func size(_ db: some SQLConnection, userID: Int64, hash: String) throws -> Int? {
        try db.scalarInt("SELECT size FROM contents WHERE user_id = ? AND hash = ?", [userID, hash]).map(Int.init)
    }

    /// What counts against the quota that `userID`'s store is charged to: the stored contents
    /// and the sizes reserved by open uploads (but `userID`'s upload of `hash`) of every space
    /// the owner of `userID` owns, personal and shared, in the trash or not, so a space's usage
    /// is its owner's whoever uploads (docs/architecture.md §6.5).
    static func usage(_ db: some SQLConnection, userID: Int64, excludingUpload hash: String?) throws -> Int {
        let stored = try db.scalarInt("SELECT coalesce(sum(size), 0) FROM contents WHERE " + chargedTogether, [userID, userID]) ?? 0
        let reserved = try db.scalarInt("SELECT coalesce(sum(size), 0) FROM uploads WHERE (" + chargedTogether + ") AND NOT (user_id = ? AND hash = ?)",
                                        [userID, userID, userID, hash ?? ""]) ?? 0
        return Int(stored + reserved)
    }

    /// The stores charged to one quota with `user_id = ?` (both parameters that store's id): the
    /// store itself and every space its owner owns.
    private static let chargedTogether = """
        user_id = ? OR user_id IN (SELECT s.id FROM spaces s WHERE s.owner_id = (SELECT o.owner_id FROM spaces o WHERE o.id = ?))
        """
}

/// The attachment limits a server enforces and publishes in `/v1/limits`.
struct AttachmentLimits: Sendable, Equatable {
    /// `--max-attachment-size`.
    var maxAttachmentBytes = 256 * 1024 * 1024
    /// The size of every upload chunk but the last.
    var uploadChunkBytes = 8 * 1024 * 1024
    /// `--quota`: bytes of content (and open uploads) each user may hold; nil: no quota.
    var quotaBytes: Int?
}

/// Why the content store refused, in the domain's words (`HTTPError+Attachments.swift` answers).
enum ContentStoreError: Error, Equatable {
    case tooLarge(limit: Int, size: Int)
    case quotaExceeded(quota: Int, used: Int, size: Int)
    case uploadNotFound
    case chunkOutOfRange(index: Int, count: Int)
    case chunkMismatch(index: Int, expectedLength: Int, receivedLength: Int)
    case incompleteUpload(missing: [Int])
    case contentMismatch
    case contentMissing(String)
}
