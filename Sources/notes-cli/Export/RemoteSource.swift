import Foundation
import NotesCore

/// Every live note and attachment of the signed-in user on the server, for `notes export --remote`.
///
/// Reads the changes feed from the beginning with content included (one request per page, not
/// one per note), so the export sees the same notes `notes sync` would fetch. The server is not
/// trusted with the filesystem: each path is validated with `NotePath`, as a local file's is,
/// and a path that is not a valid note path (`../x.md`, `/etc/x.md`) is refused and reported,
/// never written, so OUTDIR cannot be escaped whatever the server sends.
struct RemoteSource: ExportSource {
    var client: APIClient
    /// Where attachments the site copies are downloaded to before they are written.
    var staging = FileManager.default.temporaryDirectory.appendingPathComponent("notes-export-\(UUID().uuidString)")
    /// Notes per feed page; the server caps it (1000 by default).
    var pageSize = 500

    func notes() async throws -> ExportNotes {
        let latest = try await latestStateOfEveryNote()
        var skipped: [String] = []
        var notes: [ExportNote] = []
        var seen: Set<NotePath> = []
        var conflictCopies: [String] = []
        var files: [ExportFile] = []
        var downloads: [URL: NoteResource] = [:]
        var seenFiles: Set<String> = []
        // Feed order (by revision) is not stable across servers; paths order the result below.
        for change in latest where !change.deleted {
            let path: NotePath
            do {
                // A note's path must name a note (`.md`, `.markdown`, any case), as a folder's would.
                path = change.kind == .attachment ? try NotePath(entry: change.path) : try NotePath(change.path)
            } catch {
                skipped.append("\(Terminal.printable(change.path)): the server sent a path that is not a valid note path (\(error)); refused")
                continue
            }
            if change.kind == .attachment {
                guard ContentHash.isValid(change.hash), seenFiles.insert(path.value).inserted else {
                    skipped.append("\(path.value): the server sent it twice or with an invalid hash; refused")
                    continue
                }
                // Staged by hash: the name in the staging folder never comes from the server's path.
                let source = staging.appendingPathComponent(change.hash)
                files.append(ExportFile(path: path.value, source: source))
                downloads[source] = change
                continue
            }
            if ConflictName.parse(path.value) != nil {
                conflictCopies.append(path.value)
                continue
            }
            // The server keeps one note per path; a second one is a server fault, not a page to overwrite.
            guard seen.insert(path).inserted else {
                skipped.append("\(path.value): the server sent two notes with this path; kept the first")
                continue
            }
            guard let content = change.content else {
                throw ClientError.protocolViolation("the server's changes feed left out the content of \(path.value)")
            }
            notes.append(ExportNote(path: path, content: Data(content.utf8)))
        }
        notes.sort { $0.path < $1.path }
        skipped.sort()
        files.sort { $0.path < $1.path }
        return ExportNotes(notes: notes, skipped: skipped, files: files, downloads: downloads, conflictCopies: conflictCopies.sorted())
    }

    /// Walks the feed until `has_more` is false and keeps each note's latest state: a note edited
    /// during the walk shows up again on a later page, and that later entry wins. The pages come
    /// through the sync's remote, so they are checked as sync checks them (hashes, note limit,
    /// progress) before anything is exported.
    private func latestStateOfEveryNote() async throws -> [NoteResource] {
        let remote = APISyncRemote(client: client)
        var byID: [NoteID: Int] = [:]
        var entries: [NoteResource] = []
        var cursor = "0"
        while true {
            let page: ChangesPage
            do {
                page = try await remote.changes(since: cursor, limit: pageSize, includeContent: true)
            } catch SyncRemoteError.resyncRequired {
                throw ClientError.protocolViolation("the server refused to list its changes from the beginning (410 resync_required)")
            }
            for change in page.changes {
                if let index = byID[change.id] {
                    entries[index] = change
                } else {
                    byID[change.id] = entries.count
                    entries.append(change)
                }
            }
            // A page promising more without progress was refused by the remote's `FeedProgress`.
            guard page.hasMore else { return entries }
            cursor = page.cursor
        }
    }
}

extension RemoteSource {
    /// Downloads each attachment in `needed` (staging files the site copies) to its staging
    /// file, range by range, checked against its hash.
    func download(_ needed: [URL], of downloads: [URL: NoteResource]) async throws {
        let needed = needed.filter { downloads[$0] != nil }
        guard !needed.isEmpty else { return }
        try FileManager.default.createDirectory(at: staging, withIntermediateDirectories: true)
        let remote = APISyncRemote(client: client)
        let chunk = AttachmentLimits(await client.fetchLimits()).chunkBytes
        for url in needed {
            guard let attachment = downloads[url], !FileManager.default.fileExists(atPath: url.path) else { continue }
            guard FileManager.default.createFile(atPath: url.path, contents: nil), let handle = FileHandle(forWritingAtPath: url.path) else {
                throw ExportError.cannotWrite(path: url.path, cause: nil)
            }
            defer { try? handle.close() }
            var hasher = SHA256Hasher()
            let total = Int64(attachment.size)
            var offset: Int64 = 0
            repeat {
                let length = Int(min(Int64(chunk), total - offset))
                let bytes = try await remote.content(hash: attachment.hash, offset: offset, length: length, total: total)
                hasher.update(bytes)
                try handle.write(contentsOf: bytes)
                offset += Int64(length)
            } while offset < total
            guard Hex.encode(hasher.finalize()) == attachment.hash else { throw ClientError.contentMismatch(path: attachment.path) }
        }
    }
}
