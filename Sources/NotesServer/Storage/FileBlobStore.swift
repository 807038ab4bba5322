import Foundation
import NotesCore
import Synchronization

#if canImport(Glibc)
import CFileSync
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The SQLite backend's content store: a content-addressed directory beside the database.
///
/// Layout under `root` (`<db>.content`), every folder private (0700), every file 0600:
/// - `<user-id>/<first two hex digits>/<hash>`: one user's content, named by its SHA-256;
/// - `uploads/<user-id>/<hash>/`: an upload in progress, its chunks written in place into one
///   staged file (see `FileBlobStore+Uploads.swift`);
/// - `tmp/`: files being written; nothing there survives a restart that matters;
/// - `.lock`: taken shared by `notes-server backup` and exclusively by removals (see
///   `withRemovalsAllowed`).
///
/// Every file is written under `tmp/`, fsync'd, renamed into place and its folder fsync'd, so a
/// crash leaves either the whole file or none; a stored file is never changed again.
struct FileBlobStore: BlobStore {
    let root: String
    /// The uploads this store is receiving (one store per server process and folder).
    let stagedUploads = StagedUploads()
    /// The clock that says how old an abandoned temporary file is.
    let clock: ServerClock

    /// The store beside the database at `databasePath`.
    init(databasePath: String, clock: ServerClock = ServerClock()) {
        root = databasePath + ".content"
        self.clock = clock
    }

    init(root: String, clock: ServerClock = ServerClock()) {
        self.root = root
        self.clock = clock
    }

    func contentPath(userID: Int64, hash: String) -> String {
        "\(root)/\(userID)/\(hash.prefix(2))/\(hash)"
    }

    private var temporaryFolder: String { root + "/tmp" }

    func openContent(userID: Int64, hash: String) throws(BlobStoreError) -> ContentFile? {
        let fd = open(contentPath(userID: userID, hash: hash), O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            if errno == ENOENT { return nil }
            throw BlobStoreError(operation: "open stored content", code: errno)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let code = errno
            close(fd)
            throw BlobStoreError(operation: "read the size of stored content", code: code)
        }
        return ContentFile(descriptor: fd, size: Int64(info.st_size))
    }

    func makeContentSink(userID: Int64, hash: String) throws(BlobStoreError) -> any ChunkSink {
        let file = try TemporaryFile(in: temporaryFolder)
        return FileChunkSink(file: file, destinationFolder: "\(root)/\(userID)/\(hash.prefix(2))", name: hash)
    }

    /// Flushes the bytes of a batch of checked contents with one `syncfs(2)` of the store's file
    /// system instead of an `fsync(2)` each: on a journaling file system each fsync of a new file
    /// waits for its own journal commit, and a batch of small images would wait for dozens.
    ///
    /// `syncfs` reports a write-back error that happened since the descriptor it is given was
    /// opened (Linux 5.8 and later). It is given the descriptor of the batch's first remaining
    /// file, opened before any byte of the others was written, so an error writing any of them
    /// fails the batch. Elsewhere, and for a single content, each file is fsync'd.
    func makeDurable(_ sinks: [any ChunkSink]) throws(BlobStoreError) {
        let files = sinks.compactMap { ($0 as? FileChunkSink)?.unsyncedFile }
        #if os(Linux)
        if files.count > 1 {
            guard syncfs(files[0].descriptor) == 0 else {
                throw BlobStoreError(operation: "flush a batch of contents to disk", code: errno)
            }
            for file in files { file.markSynced() }
            return
        }
        #endif
        for file in files { try file.sync() }
    }

    /// Moves each sink into place, then fsyncs each folder they went to once: the first fsync
    /// commits every rename, so the others find nothing left to wait for.
    func keep(_ sinks: [any ChunkSink]) throws(BlobStoreError) {
        var folders: [String] = []
        for sink in sinks {
            guard let sink = sink as? FileChunkSink else {
                try sink.keep()
                continue
            }
            try sink.keep(syncingFolder: false)
            if !folders.contains(sink.destinationFolder) { folders.append(sink.destinationFolder) }
        }
        for folder in folders { try FileBlobStore.syncFolder(folder) }
    }

    func removeContent(userID: Int64, hash: String) throws(BlobStoreError) {
        guard unlink(contentPath(userID: userID, hash: hash)) == 0 || errno == ENOENT else {
            throw BlobStoreError(operation: "remove stored content", code: errno)
        }
    }

    /// Removes every file of `userID` (the account is being deleted).
    func removeUser(_ userID: Int64) throws(BlobStoreError) {
        try removeTree("\(root)/\(userID)", operation: "remove a user's contents")
        try removeTree("\(root)/uploads/\(userID)", operation: "remove a user's uploads")
    }

    func removeTree(_ path: String, operation: String) throws(BlobStoreError) {
        do {
            try FileManager.default.removeItem(atPath: path)
        } catch let error as CocoaError where error.code == .fileNoSuchFile {
            return
        } catch {
            if !FileManager.default.fileExists(atPath: path) { return }
            throw BlobStoreError(operation: operation, code: EIO)
        }
    }

    func removeAbandonedFiles(olderThanSeconds age: Int) throws(BlobStoreError) -> Int {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: temporaryFolder) else { return 0 }
        let cutoff = Int(clock.now() / 1000) - age
        var removed = 0
        for name in names {
            var info = stat()
            let path = temporaryFolder + "/" + name
            guard lstat(path, &info) == 0, info.st_mtim.tv_sec < cutoff else { continue }
            if unlink(path) == 0 { removed += 1 }
        }
        return removed
    }

    func withRemovalsAllowed<T>(_ body: () throws -> T) throws -> T? {
        try FileBlobStore.makeFolder(root)
        let fd = open(root + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BlobStoreError(operation: "open the content store's lock", code: errno) }
        defer { close(fd) }
        guard flock(fd, LOCK_EX | LOCK_NB) == 0 else { return nil }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// Runs `body` while no removal can run (a backup copying the store), waiting for one that runs.
    func withRemovalsHeld<T>(_ body: () throws -> T) throws -> T {
        try FileBlobStore.makeFolder(root)
        let fd = open(root + "/.lock", O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw BlobStoreError(operation: "open the content store's lock", code: errno) }
        defer { close(fd) }
        guard flock(fd, LOCK_SH) == 0 else { throw BlobStoreError(operation: "lock the content store", code: errno) }
        defer { flock(fd, LOCK_UN) }
        return try body()
    }

    /// Creates `path` and its parents, private to the server's user.
    static func makeFolder(_ path: String) throws(BlobStoreError) {
        do {
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        } catch {
            throw BlobStoreError(operation: "create the folder \(path)", code: EIO)
        }
    }

    /// Moves `source` to `destination` (creating its folder when it is missing) and, unless
    /// `syncingFolder` is false (the caller fsyncs the folder itself), makes the move durable.
    static func place(_ source: String, at destination: String, syncingFolder: Bool = true) throws(BlobStoreError) {
        let folder = String(destination[..<(destination.lastIndex(of: "/") ?? destination.startIndex)])
        if rename(source, destination) != 0 {
            guard errno == ENOENT else { throw BlobStoreError(operation: "move a file into the content store", code: errno) }
            try makeFolder(folder)
            guard rename(source, destination) == 0 else { throw BlobStoreError(operation: "move a file into the content store", code: errno) }
        }
        if syncingFolder { try syncFolder(folder) }
    }

    /// fsyncs the folder `path`, so the names moved into it are durable.
    static func syncFolder(_ path: String) throws(BlobStoreError) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            defer { close(fd) }
            guard fsync(fd) == 0 else { throw BlobStoreError(operation: "flush a content store folder", code: errno) }
        }
    }
}

/// A file being written under the store's `tmp/`, removed unless it is moved into place.
final class TemporaryFile: @unchecked Sendable {
    // @unchecked: used by one thread at a time (the connection's thread, or one handler call);
    // `removed` only guards against removing twice.
    let path: String
    private(set) var descriptor: Int32
    private var removed = false
    /// Whether its bytes are on disk (`sync`, or a `syncfs` of its file system since the last write).
    private(set) var synced = false

    init(in folder: String) throws(BlobStoreError) {
        // A random name, created exclusively: never an existing file, never followed through a link.
        let name = folder + "/part-" + String(UInt64.random(in: .min ... .max), radix: 16)
        var fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        if fd < 0 && errno == ENOENT {  // the folder's first file
            try FileBlobStore.makeFolder(folder)
            fd = open(name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0o600)
        }
        guard fd >= 0 else { throw BlobStoreError(operation: "create a temporary file", code: errno) }
        descriptor = fd
        path = name
    }

    /// Writes all of `bytes`; false on failure (`errno` says why).
    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return false
            }
            offset += written
        }
        return true
    }

    /// Flushes the file's bytes to disk (on failure the file is removed); nothing when they are.
    func sync() throws(BlobStoreError) {
        guard descriptor >= 0, !synced else { return }
        guard fsync(descriptor) == 0 else {
            let code = errno
            remove()
            throw BlobStoreError(operation: "flush a file to disk", code: code)
        }
        synced = true
    }

    /// Records that a `syncfs` of the file's file system, after its last write, flushed it.
    func markSynced() {
        synced = true
    }

    /// fsyncs (unless flushed already), closes and moves the file to `destination`.
    func place(at destination: String, syncingFolder: Bool = true) throws(BlobStoreError) {
        try sync()
        close(descriptor)
        descriptor = -1
        do {
            try FileBlobStore.place(path, at: destination, syncingFolder: syncingFolder)
            removed = true
        } catch {
            remove()
            throw error
        }
    }

    /// Closes and deletes the file (again: nothing).
    func remove() {
        guard !removed else { return }
        removed = true
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
        unlink(path)
    }

    deinit { remove() }
}

/// An upload chunk (or a whole content) received into a temporary file and hashed as it
/// arrives; `keep` renames it to its place (an upload's folder, or the content's own path).
final class FileChunkSink: ChunkSink, @unchecked Sendable {
    // @unchecked: the server calls `write`/`discard` from the connection's thread only, and the
    // handler that calls `finish` runs on that same thread after the last `write`.
    private let file: TemporaryFile
    let destinationFolder: String
    private let name: String
    private var hasher = SHA256Hasher()
    private(set) var byteCount = 0

    init(file: TemporaryFile, destinationFolder: String, name: String) {
        self.file = file
        self.destinationFolder = destinationFolder
        self.name = name
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard file.write(bytes) else { return false }
        assert(!file.synced, "written after it was flushed")
        hasher.update(bytes)
        byteCount += bytes.count
        return true
    }

    func discard() {
        file.remove()
    }

    func seal(length: Int, digest: [UInt8]) throws(BlobStoreError) -> Bool {
        guard try check(length: length, digest: digest) else { return false }
        try file.sync()
        return true
    }

    func check(length: Int, digest: [UInt8]) throws(BlobStoreError) -> Bool {
        guard byteCount == length, ConstantTime.equal(hasher.finalize(), digest) else {
            file.remove()
            return false
        }
        return true
    }

    /// Its file, while its bytes are still to be flushed (`FileBlobStore.makeDurable`).
    var unsyncedFile: TemporaryFile? {
        file.synced || file.descriptor < 0 ? nil : file
    }

    func keep() throws(BlobStoreError) {
        try keep(syncingFolder: true)
    }

    func keep(syncingFolder: Bool) throws(BlobStoreError) {
        try file.place(at: destinationFolder + "/" + name, syncingFolder: syncingFolder)
    }
}
