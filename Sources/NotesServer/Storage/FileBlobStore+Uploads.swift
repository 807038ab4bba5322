import NotesCore
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Uploads in progress in the file store: one staged file per upload, each chunk written at its
/// offset as it arrives, so `complete` is a rename and never a copy.
///
/// Layout under `uploads/<user-id>/<hash>/`:
/// - `staged`: the content being received, `size` bytes from the start (holes where chunks are
///   still missing);
/// - `received-<index>`: an empty file made once chunk `index` was verified and flushed to disk,
///   so the received chunks survive a restart. (A folder from before this layout holds chunks
///   named `<index>`: they are not counted as received, so the client sends them again.)
///
/// A chunk is written by one request at a time and never again once received: a chunk sent again
/// is only checked against its digest, so neither a retry nor a wrong digest can change bytes
/// already received. Received bytes are hashed into the whole content's SHA-256 in order as they
/// arrive (`StagedUpload`), so `complete` usually has nothing left to read; after a restart, or
/// with chunks missing in between, it hashes the staged file once.
extension FileBlobStore {
    func uploadFolder(userID: Int64, hash: String) -> String {
        "\(root)/uploads/\(userID)/\(hash)"
    }

    func makeChunkSink(for upload: UploadState, userID: Int64, index: Int) throws(BlobStoreError) -> any ChunkSink {
        let folder = uploadFolder(userID: userID, hash: upload.hash)
        let staged = try stagedUploads.entry(folder: folder, upload: upload)
        let offset = index * upload.chunkSize
        let length = max(0, min(upload.chunkSize, upload.size - offset))
        guard staged.claim(index) else {
            return FileUploadChunkSink(staged: staged, index: index, descriptor: -1, offset: offset, length: length)
        }
        let fd = open(staged.path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            let code = errno
            staged.release(index)
            throw BlobStoreError(operation: "open an upload's staged file", code: code)
        }
        return FileUploadChunkSink(staged: staged, index: index, descriptor: fd, offset: offset, length: length)
    }

    func receivedChunks(userID: Int64, hash: String) throws(BlobStoreError) -> [Int] {
        StagedUpload.markedChunks(in: uploadFolder(userID: userID, hash: hash)).sorted()
    }

    func stage(_ upload: UploadState, userID: Int64) throws(BlobStoreError) -> any StagedContent {
        let folder = uploadFolder(userID: userID, hash: upload.hash)
        let path = folder + "/" + StagedUpload.stagedName
        let hash: String
        if let entry = stagedUploads.existing(folder: folder), entry.size == upload.size,
           let running = entry.wholeHash(chunkCount: upload.chunkCount) {
            hash = running
        } else {
            hash = try StagedUpload.hashFile(at: path, size: upload.size)
        }
        return FileStagedUpload(path: path, hash: hash, size: upload.size,
                                destination: contentPath(userID: userID, hash: upload.hash))
    }

    func removeUpload(userID: Int64, hash: String) throws(BlobStoreError) {
        let folder = uploadFolder(userID: userID, hash: hash)
        stagedUploads.remove(folder: folder)
        try removeTree(folder, operation: "remove an upload")
    }
}

/// The uploads this process is receiving into the file store, by folder.
final class StagedUploads: Sendable {
    private let entries = Mutex<[String: StagedUpload]>([:])

    /// The upload in `folder`, its staged file made (`upload.size` bytes) if it is new.
    func entry(folder: String, upload: UploadState) throws(BlobStoreError) -> StagedUpload {
        let found: Result<StagedUpload, BlobStoreError> = entries.withLock { entries in
            if let entry = entries[folder], entry.size == upload.size, entry.chunkSize == upload.chunkSize { return .success(entry) }
            do throws(BlobStoreError) {
                let entry = try StagedUpload(folder: folder, size: upload.size, chunkSize: upload.chunkSize)
                entries[folder] = entry
                return .success(entry)
            } catch {
                return .failure(error)
            }
        }
        return try found.get()
    }

    func existing(folder: String) -> StagedUpload? {
        entries.withLock { $0[folder] }
    }

    /// Forgets the upload in `folder` (being removed): a request still writing into it keeps nothing.
    func remove(folder: String) {
        entries.withLock { $0.removeValue(forKey: folder) }?.retire()
    }
}

/// One upload being received: which chunks are verified and flushed, which are being written,
/// and the whole content's SHA-256 over the chunks verified from the start without a gap.
final class StagedUpload: Sendable {
    static let stagedName = "staged"
    static let markerPrefix = "received-"

    let folder: String
    let path: String
    let size: Int
    let chunkSize: Int
    var chunkCount: Int { UploadState.chunkCount(size: size, chunkSize: chunkSize) }

    private struct State {
        /// Chunks whose bytes are in the staged file, checked and flushed: never written again.
        var verified: Set<Int>
        /// Chunks a request is writing now (one request per chunk).
        var writing: Set<Int> = []
        /// The whole content's hash covers chunks `0..<hashed`...
        var hashed = 0
        var hasher = SHA256Hasher()
        /// ...unless a request is advancing it (then it holds the hasher).
        var hashing = false
        /// The upload was removed (completed, abandoned, opened again with another size).
        var retired = false
    }
    private let state: Mutex<State>

    /// Makes `folder` and its staged file of `size` bytes if they are missing; counts the chunks
    /// marked received there (a restart loses nothing of them).
    init(folder: String, size: Int, chunkSize: Int) throws(BlobStoreError) {
        self.folder = folder
        self.path = folder + "/" + Self.stagedName
        self.size = size
        self.chunkSize = chunkSize
        try FileBlobStore.makeFolder(folder)
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw BlobStoreError(operation: "create an upload's staged file", code: errno) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw BlobStoreError(operation: "read the size of an upload's staged file", code: errno) }
        if Int(info.st_size) != size {
            guard ftruncate(fd, off_t(size)) == 0 else { throw BlobStoreError(operation: "size an upload's staged file", code: errno) }
        }
        let count = UploadState.chunkCount(size: size, chunkSize: chunkSize)
        state = Mutex(State(verified: Set(Self.markedChunks(in: folder).filter { $0 < count })))
    }

    /// Chunk indices marked received in `folder`.
    static func markedChunks(in folder: String) -> [Int] {
        guard let dir = opendir(folder) else { return [] }
        defer { closedir(dir) }
        var indices: [Int] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name.hasPrefix(markerPrefix), let index = Int(name.dropFirst(markerPrefix.count)) { indices.append(index) }
        }
        return indices
    }

    /// Takes chunk `index` for writing: false when it is verified already, or another request
    /// is writing it (then this request only checks its bytes).
    func claim(_ index: Int) -> Bool {
        state.withLock { state in
            guard !state.verified.contains(index), !state.writing.contains(index) else { return false }
            state.writing.insert(index)
            return true
        }
    }

    /// Gives chunk `index` up unwritten (its bytes were wrong, or the request ended early).
    func release(_ index: Int) {
        _ = state.withLock { $0.writing.remove(index) }
    }

    func isVerified(_ index: Int) -> Bool {
        state.withLock { $0.verified.contains(index) }
    }

    var isRetired: Bool { state.withLock { $0.retired } }

    func retire() {
        state.withLock { $0.retired = true }
    }

    /// Records chunk `index`, written and flushed, as verified, then hashes every verified chunk
    /// that now continues the whole content's hash without a gap (unless another request does).
    func verified(_ index: Int) {
        var hasher: SHA256Hasher? = state.withLock { state in
            state.writing.remove(index)
            state.verified.insert(index)
            guard !state.hashing, state.verified.contains(state.hashed) else { return nil }
            state.hashing = true
            return state.hasher
        }
        while var running = hasher {
            let next = state.withLock { $0.hashed }
            let hashedOK = hashChunk(next, into: &running)
            hasher = state.withLock { state in
                guard hashedOK else {
                    state.hashing = false  // left for `complete` to hash from the file
                    return nil
                }
                state.hashed = next + 1
                state.hasher = running
                guard state.verified.contains(state.hashed) else {
                    state.hashing = false
                    return nil
                }
                return running
            }
        }
    }

    /// The whole content's SHA-256 when every chunk is hashed, else nil.
    func wholeHash(chunkCount count: Int) -> String? {
        state.withLock { state in
            guard !state.hashing, state.hashed == count, count == chunkCount else { return nil }
            return Hex.encode(state.hasher.finalize())
        }
    }

    private func hashChunk(_ index: Int, into hasher: inout SHA256Hasher) -> Bool {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let offset = index * chunkSize
        return Self.hash(fd, from: offset, count: max(0, min(chunkSize, size - offset)), into: &hasher)
    }

    /// The SHA-256 hex of the first `size` bytes of the file at `path`.
    static func hashFile(at path: String, size: Int) throws(BlobStoreError) -> String {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw BlobStoreError(operation: "read an upload's staged file", code: errno) }
        defer { close(fd) }
        var hasher = SHA256Hasher()
        guard hash(fd, from: 0, count: size, into: &hasher) else {
            throw BlobStoreError(operation: "read an upload's staged file", code: errno == 0 ? EIO : errno)
        }
        return Hex.encode(hasher.finalize())
    }

    /// What `hash` reads through: below the mmap threshold (main.swift), so it is the arena's
    /// memory, reused chunk after chunk. At 1 MiB it was a fresh mapping for every chunk hashed,
    /// zeroed by the kernel page by page: 256 page faults per 8 MiB chunk.
    static let hashBufferBytes = 256 << 10

    private static func hash(_ fd: Int32, from offset: Int, count: Int, into hasher: inout SHA256Hasher) -> Bool {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: min(max(count, 1), hashBufferBytes), alignment: 16)
        defer { buffer.deallocate() }
        var done = 0
        while done < count {
            let read = pread(fd, buffer.baseAddress, min(buffer.count, count - done), off_t(offset + done))
            if read < 0 && errno == EINTR { continue }
            guard read > 0 else { return false }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[..<read]))
            done += read
        }
        return true
    }
}

/// A chunk received into its place in the upload's staged file, hashed as it arrives. A chunk
/// already verified (or being written by another request) is only hashed, never written.
final class FileUploadChunkSink: ChunkSink, @unchecked Sendable {
    // @unchecked: the server calls `write`/`discard` from the connection's thread only, and the
    // handler that calls `seal` and `keep` runs on that same thread after the last `write`.
    private let staged: StagedUpload
    private let index: Int
    /// The staged file opened for writing; -1 when this request only checks the bytes.
    private var descriptor: Int32
    private let offset: Int
    private let length: Int
    private var hasher = SHA256Hasher()
    private var sealed = false
    private(set) var byteCount = 0

    init(staged: StagedUpload, index: Int, descriptor: Int32, offset: Int, length: Int) {
        self.staged = staged
        self.index = index
        self.descriptor = descriptor
        self.offset = offset
        self.length = length
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        // Never past the chunk's own bytes: a longer body is refused by `seal`, unwritten.
        let room = max(0, length - byteCount)
        if descriptor >= 0, room > 0, let base = bytes.baseAddress {
            let count = min(room, bytes.count)
            var done = 0
            while done < count {
                let written = pwrite(descriptor, base + done, count - done, off_t(offset + byteCount + done))
                if written < 0 {
                    if errno == EINTR { continue }
                    return false
                }
                done += written
            }
        }
        hasher.update(bytes)
        byteCount += bytes.count
        return true
    }

    func seal(length: Int, digest: [UInt8]) throws(BlobStoreError) -> Bool {
        guard byteCount == length, length == self.length, ConstantTime.equal(hasher.finalize(), digest) else {
            discard()
            return false
        }
        guard descriptor >= 0 else { return true }
        guard fsync(descriptor) == 0 else {
            let code = errno
            discard()
            throw BlobStoreError(operation: "flush an upload chunk to disk", code: code)
        }
        close(descriptor)
        descriptor = -1
        sealed = true
        staged.verified(index)
        return true
    }

    /// Marks the chunk received on disk (the bytes are flushed already). A chunk that only had
    /// its bytes checked is received only if another request's copy of it was verified.
    func keep() throws(BlobStoreError) {
        // Under the database's writer, as every removal of an upload: a chunk written into a
        // staged file since removed must not mark the folder of an upload opened anew.
        guard !staged.isRetired else {
            throw BlobStoreError(operation: "store chunk \(index) of an upload that was removed meanwhile", code: ENOENT)
        }
        guard sealed || staged.isVerified(index) else {
            throw BlobStoreError(operation: "store chunk \(index), which another request is still sending", code: EBUSY)
        }
        let marker = staged.folder + "/" + StagedUpload.markerPrefix + String(index)
        let fd = open(marker, O_WRONLY | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
        guard fd >= 0 else { throw BlobStoreError(operation: "mark an upload chunk received", code: errno) }
        close(fd)
        try FileBlobStore.syncFolder(staged.folder)
    }

    func discard() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        if !sealed { staged.release(index) }
    }

    deinit { discard() }
}

/// An upload's staged file, every chunk in place and hashed, waiting to be moved into the store.
final class FileStagedUpload: StagedContent, @unchecked Sendable {
    // @unchecked: made, checked and committed or dropped by one handler call on one thread.
    private let path: String
    let hash: String
    let size: Int
    private let destination: String

    init(path: String, hash: String, size: Int, destination: String) {
        self.path = path
        self.hash = hash
        self.size = size
        self.destination = destination
    }

    /// Flushes the staged file (each chunk was flushed already: cheap) and renames it into place.
    func commit() throws(BlobStoreError) {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { throw BlobStoreError(operation: "open an upload's staged file", code: errno) }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw BlobStoreError(operation: "flush an upload's staged file", code: errno) }
        try FileBlobStore.place(path, at: destination)
    }

    /// The staged file stays with its upload (removed with it), so a failed `complete` can be retried.
    func discard() {}
}
