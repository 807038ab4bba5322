import NotesCore

/// Downloaded content is checked where it enters the client, before anything can write it:
/// against its `hash` (SHA-256 hex, as the server computes it) and against the server's
/// published note limit. A mismatch means a broken or hostile server (or something between),
/// and the note is refused whole rather than written wrong.
extension APIClient {
    /// Checks `content` received for the note at `path` that the server says hashes to `hash`.
    /// - Throws: `ClientError` naming the note when the content is over the note limit or
    ///   does not match its hash.
    func checkDownloaded(_ content: String, hash: String, path: String) async throws {
        let size = content.utf8.count
        // Only content past the default limit costs a request for the published one.
        if size > ResponseBudget.defaultLimits.maxNoteBytes {
            let limit = await fetchLimits().maxNoteBytes
            if size > limit {
                throw ClientError.noteOverLimit(path: path, bytes: size, limit: limit)
            }
        }
        guard SHA256.hex(of: content) == hash.lowercased() else {
            throw ClientError.contentMismatch(path: path)
        }
    }

    /// Checks the content of every entry of a changes page that carries content.
    func checkDownloaded(_ notes: [NoteResource]) async throws {
        for note in notes {
            if let content = note.content { try await checkDownloaded(content, hash: note.hash, path: note.path) }
        }
    }
}
