import NotesCore
import Synchronization

/// The server as a dry run sees it: reads (the changes feed, old revisions) go to the real
/// server; batched writes are answered by a model of the server's rules instead of being sent.
///
/// The model starts from the folder's index (each note at its base) and takes in every feed
/// entry the run reads, so once the pull is done it holds the server's state of every note the
/// folder knows. A write is then judged as the server judges it (`NoteStore.put`/`delete`): a
/// create of an id that exists is stale (412) unless it is the same note, a change needs the
/// current revision (412) and an existing note (404), and a live note of another id at the same
/// path, ignoring case, refuses it (409). So `notes status` predicts the uploads, the rounds of
/// an interrupted sync (creates the server already holds) and the case clashes the server makes.
final class DryRunRemote: SyncRemote {
    fileprivate struct State {
        var notes: [NoteID: NoteResource] = [:]
        /// The live note at each path's collision key (paths are unique ignoring case).
        var byKey: [String: NoteID] = [:]
        var lastRev: Int64 = 0

        mutating func set(_ note: NoteResource) {
            if let old = notes[note.id], let key = Self.key(old.path), byKey[key] == note.id { byKey[key] = nil }
            notes[note.id] = note
            if !note.deleted, let key = Self.key(note.path) { byKey[key] = note.id }
            lastRev = max(lastRev, note.rev)
        }

        static func key(_ path: String) -> String? { (try? NotePath(entry: path))?.collisionKey }
    }

    private let base: any SyncRemote
    private let state = Mutex(State())

    init(base: any SyncRemote) {
        self.base = base
    }

    /// Seeds the model with the index: each confirmed note as it was at its base.
    func seed(_ rows: [IndexRow]) {
        state.withLock { state in
            for row in rows where row.base.rev > 0 {
                state.set(Self.resource(id: row.base.id, path: row.base.path, hash: row.base.hash, rev: row.base.rev))
            }
        }
    }

    func noteLimit() async -> Int {
        await base.noteLimit()
    }

    func limits() async -> ServerLimits {
        await base.limits()
    }

    /// A dry run sends no content: every content counts as present, so the prediction is the
    /// batch the sync sends once its uploads are done.
    func missingContent(_ hashes: [String]) async throws -> [String] { [] }

    func changes(since: String?, limit: Int, includeContent: Bool) async throws -> ChangesPage {
        let page = try await base.changes(since: since, limit: limit, includeContent: includeContent)
        state.withLock { state in
            // A walk from the beginning lists every note the server knows: the others are gone.
            if since == nil {
                state.notes = [:]
                state.byKey = [:]
            }
            for var note in page.changes {
                note.content = nil
                state.set(note)
            }
        }
        return page
    }

    func revision(id: NoteID, rev: Int64) async throws -> RevisionResource? {
        try await base.revision(id: id, rev: rev)
    }

    func batch(_ operations: [BatchOperation]) async throws -> BatchResponse {
        var results = state.withLock { state in operations.map { state.apply($0) } }
        // A stale write is answered with the current note and its content, as the server does;
        // the content is the real server's (the model keeps none).
        for index in results.indices where results[index].status == 412 {
            guard var note = results[index].note, note.content == nil, !note.deleted, note.kind == .note else { continue }
            note.content = try await base.revision(id: note.id, rev: note.rev)?.content
            results[index].note = note
        }
        return BatchResponse(results: results)  // nothing written: no feed span
    }

    static func resource(id: NoteID, path: String, hash: String, rev: Int64, deleted: Bool = false, size: Int = 0,
                         kind: EntryKind? = nil) -> NoteResource {
        NoteResource(id: id, path: path, content: nil, hash: hash, rev: rev, size: size, createdAt: "", updatedAt: "", deleted: deleted,
                     kind: kind ?? EntryKind(path: path))
    }
}

extension DryRunRemote.State {
    /// One operation judged as `NoteStore` judges it, applied to the model when it succeeds.
    mutating func apply(_ operation: BatchOperation) -> BatchResult {
        let id = operation.id
        let existing = notes[id]
        func refused(_ status: Int, _ code: String) -> BatchResult {
            BatchResult(id: id, status: status, note: status == 412 ? existing : nil, error: .init(code: code, message: "predicted"))
        }
        if operation.op == .delete {
            guard let existing else { return refused(404, "not_found") }
            guard existing.rev == operation.ifMatch else { return refused(412, "stale_revision") }
            if existing.deleted { return BatchResult(id: id, status: 200, note: existing) }
            var note = existing
            note.rev = lastRev + 1
            note.deleted = true
            note.hash = SHA256.hex(of: "")
            set(note)
            return BatchResult(id: id, status: 200, note: note)
        }
        guard let path = operation.path, let notePath = try? NotePath(entry: path),
              let hash = operation.kind == .attachment ? operation.hash : operation.content.map({ SHA256.hex(of: $0) }) else {
            return refused(400, "invalid_path")
        }
        if let ifMatch = operation.ifMatch {
            guard let existing else { return refused(404, "not_found") }
            guard existing.rev == ifMatch else { return refused(412, "stale_revision") }
            if !existing.deleted && existing.path == notePath.value && existing.hash == hash { return BatchResult(id: id, status: 200, note: existing) }
        } else if let existing, !existing.deleted {
            if existing.path == notePath.value && existing.hash == hash { return BatchResult(id: id, status: 200, note: existing) }
            return refused(412, "stale_revision")
        }
        if let other = byKey[notePath.collisionKey], other != id { return refused(409, "path_taken") }
        let note = DryRunRemote.resource(id: id, path: notePath.value, hash: hash, rev: lastRev + 1, size: operation.content?.utf8.count ?? 0,
                                         kind: operation.kind)
        set(note)
        return BatchResult(id: id, status: existing == nil || existing?.deleted == true ? 201 : 200, note: note)
    }
}
