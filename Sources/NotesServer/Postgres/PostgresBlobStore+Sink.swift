import NotesCore

/// An upload chunk on its way into PostgreSQL: written to a nameless file and hashed as it
/// arrives, checked and inserted by `seal` (one transaction, committed before the client hears
/// back), and removed again by `discard` only if its upload turned out to be gone.
final class PostgresChunkSink: ChunkSink, @unchecked Sendable {
    // @unchecked: the server calls `write`/`discard` from the connection's thread only, and the
    // handler that calls `seal`/`keep` runs on that same thread after the last `write`.
    private enum State { case receiving, stored(insertedHere: Bool), kept, discarded }

    private let store: PostgresBlobStore
    private let userID: Int64
    private let hash: String
    private let index: Int
    private let file: UnlinkedFile
    private var hasher = SHA256Hasher()
    private var state = State.receiving
    private(set) var byteCount = 0

    init(store: PostgresBlobStore, userID: Int64, hash: String, index: Int, file: UnlinkedFile) {
        self.store = store
        self.userID = userID
        self.hash = hash
        self.index = index
        self.file = file
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard case .receiving = state, file.append(bytes) else { return false }
        hasher.update(bytes)
        byteCount += bytes.count
        return true
    }

    /// Inserts the chunk when it is `length` bytes hashing to `digest`; the database's commit is
    /// what makes it durable, so the work `keep` does on files happens here.
    func seal(length: Int, digest: [UInt8]) throws(BlobStoreError) -> Bool {
        guard case .receiving = state else { return false }
        defer { file.close() }
        guard byteCount == length, ConstantTime.equal(hasher.finalize(), digest) else {
            state = .discarded
            return false
        }
        let inserted = try store.storeChunk(userID: userID, hash: hash, index: index, from: file)
        state = .stored(insertedHere: inserted)
        return true
    }

    /// The chunk is part of its upload since `seal` committed: nothing left to do but remember
    /// that `discard` must leave it.
    func keep() throws(BlobStoreError) {
        state = .kept
    }

    func discard() {
        if case .stored(insertedHere: true) = state {
            try? store.removeChunk(userID: userID, hash: hash, index: index)
        }
        if case .kept = state { return }
        state = .discarded
        file.close()
    }
}

/// A whole content on its way into PostgreSQL (`PUT /v1/content/{hash}`): written to a nameless
/// file and hashed as it arrives, checked by `seal`, and inserted as the content's pieces by
/// `keep`, inside the transaction that then inserts its `contents` row, so both commit together
/// (or neither does).
final class PostgresContentSink: ChunkSink, @unchecked Sendable {
    // @unchecked: the server calls `write`/`discard` from the connection's thread only, and the
    // handler that calls `seal`/`keep` runs on that same thread after the last `write`.
    private let store: PostgresBlobStore
    private let userID: Int64
    private let hash: String
    private let file: UnlinkedFile
    private var hasher = SHA256Hasher()
    private var sealed = false
    private(set) var byteCount = 0

    init(store: PostgresBlobStore, userID: Int64, hash: String, file: UnlinkedFile) {
        self.store = store
        self.userID = userID
        self.hash = hash
        self.file = file
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard !sealed, file.append(bytes) else { return false }
        hasher.update(bytes)
        byteCount += bytes.count
        return true
    }

    /// Checks the bytes; the database's commit (after `keep`) is what makes them durable.
    func seal(length: Int, digest: [UInt8]) throws(BlobStoreError) -> Bool {
        guard !sealed else { return false }
        sealed = true
        guard byteCount == length, ConstantTime.equal(hasher.finalize(), digest) else {
            file.close()
            return false
        }
        return true
    }

    /// Leaves the file open: a transaction retried (a serialization failure) keeps again, and
    /// the caller's `discard` closes it.
    func keep() throws(BlobStoreError) {
        try store.storeContentPieces(userID: userID, hash: hash, from: file)
    }

    func discard() {
        file.close()
    }
}

/// A content joined from an upload's chunks: its bytes, when they hash to its name, are already
/// copied into `content_chunks` by `assemble` (committed), waiting for their `contents` row.
final class PostgresStagedContent: StagedContent, @unchecked Sendable {
    // @unchecked: made, checked and committed or dropped by one handler call on one thread.
    private let store: PostgresBlobStore
    private let userID: Int64
    let hash: String
    let size: Int
    private var wrotePieces: Bool
    private var committed = false

    init(store: PostgresBlobStore, userID: Int64, hash: String, size: Int, wrotePieces: Bool) {
        self.store = store
        self.userID = userID
        self.hash = hash
        self.size = size
        self.wrotePieces = wrotePieces
    }

    /// Nothing to move: the pieces are in place. The caller's `contents` insert is what claims
    /// them, and the database refuses it if they are not all there.
    func commit() throws(BlobStoreError) {
        committed = true
    }

    /// Removes the pieces `assemble` wrote unless they were committed or a `contents` row names
    /// them (another upload of the same bytes); what a crash leaves, the purge sweeps.
    func discard() {
        guard wrotePieces, !committed else { return }
        wrotePieces = false
        try? store.removeContent(userID: userID, hash: hash)
    }
}
