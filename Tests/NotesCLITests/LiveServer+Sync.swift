import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// End-to-end sync on a live server: real folders under `work`, synced either through the real
/// `notes` binary or, where a test needs a hook or many quick syncs, through the same engine
/// in-process (still against the real server over HTTP).
extension LiveServer {
    /// The absolute path of folder `name` under the work directory.
    func folder(_ name: String) -> String { work.appending(name).path }

    /// `notes init NAME --server URL --device NAME` then returns the folder path.
    @discardableResult
    func initFolder(_ name: String) async throws -> String {
        let result = try await notes(["init", folder(name), "--server", serverURL, "--device", name])
        #expect(result.exitCode == 0, "init failed: \(result.stderr)")
        return folder(name)
    }

    /// `notes sync NAME --json` and its decoded report; expects exit `code`.
    /// - Throws: `UnreadableReport` when stdout is not a report: a test that checks counts must
    ///   never pass on the zeros of a report that was never printed.
    @discardableResult
    func sync(_ name: String, _ extra: [String] = [], expect code: Int32 = 0,
              sourceLocation: SourceLocation = #_sourceLocation) async throws -> SyncReport {
        let result = try await notes(["sync", folder(name), "--json"] + extra, sourceLocation: sourceLocation)
        #expect(result.exitCode == code, "sync \(name) exited \(result.exitCode): \(result.stderr)", sourceLocation: sourceLocation)
        do {
            return try WireJSON.decoder().decode(SyncReport.self, from: Data(result.stdout.utf8))
        } catch {
            throw UnreadableReport(command: "sync \(name)", exitCode: result.exitCode, stdout: result.stdout, stderr: result.stderr, cause: error)
        }
    }

    /// Syncs folder `name` in-process through the engine, against the real server.
    func syncInProcess(_ name: String, options: SyncOptions = SyncOptions(),
                       wrap: (any SyncRemote) -> any SyncRemote = { $0 }) async throws -> SyncReport {
        try await withEngine(name, options: options, wrap: wrap) { engine in try await engine.run() }
    }

    /// Runs `body` with the engine `notes sync` makes for folder `name`, against the real
    /// server, its lock held and its index open for as long as `body` runs: for tests that
    /// drive one phase of a sync.
    func withEngine<T>(_ name: String, options: SyncOptions = SyncOptions(), wrap: (any SyncRemote) -> any SyncRemote = { $0 },
                       _ body: (SyncEngine) async throws -> T) async throws -> T {
        let folder = try SyncFolder.find(from: self.folder(name))
        let lock = try SyncLock(path: folder.lockPath)
        defer { withExtendedLifetime(lock) {} }  // released after the index is closed, as `notes sync` does
        let index = try SyncIndex(path: folder.indexPath)
        defer { try? index.close() }
        // The folder's own account, checked page by page, as `notes sync` does.
        let bound = try await ClientFactory(environment: environment).client(forFolder: folder, tokenCheck: .byChangesFeed)
        let remote = wrap(AccountCheckedRemote(APISyncRemote(client: bound.client), bound: bound))
        return try await body(SyncEngine(folder: folder, index: index, remote: remote, options: options))
    }

    /// Writes `text` at `path` in folder `name`, creating folders.
    func write(_ name: String, _ path: String, _ text: String) throws {
        try write(name, path, Data(text.utf8))
    }

    func write(_ name: String, _ path: String, _ data: Data) throws {
        let url = work.appending(name).appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try data.write(to: url)
    }

    /// The text at `path` in folder `name`, `nil` when missing.
    func read(_ name: String, _ path: String) -> String? {
        FileManager.default.contents(atPath: folder(name) + "/" + path).map { String(decoding: $0, as: UTF8.self) }
    }

    func remove(_ name: String, _ path: String) throws {
        try FileManager.default.removeItem(atPath: folder(name) + "/" + path)
    }

    func move(_ name: String, _ from: String, _ to: String) throws {
        let target = folder(name) + "/" + to
        try FileManager.default.createDirectory(atPath: (target as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try FileManager.default.moveItem(atPath: folder(name) + "/" + from, toPath: target)
    }

    /// Every synced-looking file of folder `name` (not under `.notes/`), path → bytes.
    func tree(_ name: String) throws -> [String: Data] {
        try ExportFixture.tree(work.appending(name)).filter { !$0.key.hasPrefix(".notes/") && !$0.key.hasPrefix(".notesignore") }
    }

    /// The server's live notes, path → content, through the real API.
    func serverNotes() async throws -> [String: String] {
        var result: [String: String] = [:]
        for note in try await serverFeed([("include", "content")]) where !note.deleted { result[note.path] = note.content ?? "" }
        return result
    }

    /// The server's live notes with metadata, by path.
    func serverResources() async throws -> [String: NoteResource] {
        let api = try apiClient()
        let page = try await api.json(ChangesPage.self, APIRequest("GET", "/v1/changes", query: [("limit", "1000")]))
        return Dictionary(page.changes.filter { !$0.deleted }.map { ($0.path, $0) }, uniquingKeysWith: { $1 })
    }

    /// The server's live attachments with metadata, by path (the feed with `kinds=note,attachment`).
    func serverAttachments() async throws -> [String: NoteResource] {
        var result: [String: NoteResource] = [:]
        for entry in try await serverFeed([("kinds", "note,attachment")]) where !entry.deleted && entry.kind == .attachment {
            result[entry.path] = entry
        }
        return result
    }

    /// The server's whole changes feed through the real API, page after page, `query` added to
    /// each page's request.
    private func serverFeed(_ query: [(String, String)]) async throws -> [NoteResource] {
        let api = try apiClient()
        var entries: [NoteResource] = []
        var cursor: String?
        while true {
            let page = try await api.json(ChangesPage.self, APIRequest("GET", "/v1/changes",
                                                                        query: [("limit", "1000")] + query + (cursor.map { [("since", $0)] } ?? [])))
            entries += page.changes
            guard page.hasMore else { return entries }
            cursor = page.cursor
        }
    }

    /// How many `.md` files folder `name` holds outside `.notes/` (cheap enough to poll).
    func noteFileCount(_ name: String) -> Int {
        Self.noteFileCount(in: folder(name))
    }

    /// How many `.md` files the folder at `path` holds outside `.notes/`.
    static func noteFileCount(in path: String) -> Int {
        guard let walk = FileManager.default.enumerator(atPath: path) else { return 0 }
        var count = 0
        while let path = walk.nextObject() as? String {
            if path == ".notes" { walk.skipDescendants() } else if path.hasSuffix(".md") { count += 1 }
        }
        return count
    }

    /// Folder `name` as text by path (for comparing with `serverNotes`).
    func textTree(_ name: String) throws -> [String: String] {
        try tree(name).mapValues { String(decoding: $0, as: UTF8.self) }
    }

    /// `PRAGMA integrity_check` of folder `name`'s index.
    func indexIntegrity(_ name: String) throws -> String {
        let index = try SyncIndex(path: folder(name) + "/.notes/index.sqlite")
        defer { try? index.close() }
        return try index.integrityCheck()
    }
}

/// `notes … --json` printed something that is not its report (nothing, a partial line, another
/// shape); the test fails with what was printed.
struct UnreadableReport: Error, CustomStringConvertible {
    let command: String
    let exitCode: Int32
    let stdout: String
    let stderr: String
    let cause: any Error

    var description: String {
        "notes \(command) --json exited \(exitCode) without a readable report (\(cause))\nstdout: \(stdout)\nstderr: \(stderr)"
    }
}

extension SyncEngine {
    /// The file at `path` as a tracked note whose base is exactly what the file holds now (a
    /// note last synced at revision `rev`; 0 for a create not yet confirmed), as a scan finds it.
    func trackedNote(at path: String, rev: Int64, id: NoteID = NoteID()) throws -> TrackedNote {
        let read = try files.read(path)
        let row = IndexRow(base: SyncBase(id: id, path: path, rev: rev, hash: SHA256.hex(of: read.bytes)), diskPath: path, stat: read.stat)
        return TrackedNote(row: row, local: .clean, diskPath: path, stat: read.stat)
    }

    /// The file at `path` as an untracked file, as a scan finds it.
    func untrackedFile(at path: String) throws -> UntrackedFile {
        let read = try files.read(path)
        return UntrackedFile(path: path, diskPath: path, hash: SHA256.hex(of: read.bytes), stat: read.stat)
    }
}
