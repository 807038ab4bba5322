import NotesCore

/// Where a WebDAV PUT of an attachment goes as it arrives: a file with no name, hashed on the
/// way, so a file of any size is never held in memory and its SHA-256 is known at its end.
final class DAVUploadSink: RequestBodySink, @unchecked Sendable {
    // @unchecked: the server calls `write` and `discard` from the connection's thread, one at a
    // time, and the handler reads the result only after the body is complete.
    private let file: UnlinkedFile
    private var hasher = SHA256Hasher()

    init(temporaryFolder: String) throws(BlobStoreError) {
        file = try UnlinkedFile(in: temporaryFolder)
    }

    func write(_ bytes: UnsafeRawBufferPointer) -> Bool {
        hasher.update(bytes)
        return file.append(bytes)
    }

    func discard() {
        file.close()
    }

    /// The received body: its file, length and SHA-256 in hex.
    func finish() -> (file: UnlinkedFile, size: Int, hash: String) {
        (file, file.size, Hex.encode(hasher.finalize()))
    }
}
