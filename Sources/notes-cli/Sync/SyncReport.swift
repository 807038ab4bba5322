import NotesCore

/// How a sync is run.
struct SyncOptions: Sendable {
    /// Decide and report, but write nothing: not the folder, not the index, not the server.
    var dryRun = false
    /// Let a sync delete all tracked notes, or more than half of them when over 20 (DESIGN 4.9).
    var allowMassDelete = false
    /// Changes per feed page; each page is applied and recorded before the next (bounded memory).
    var pageSize = 500
    /// Operations and content bytes per batch, under the server's published limits.
    var batchOperations = 500
    /// Kept so the JSON body stays under 64 KiB, which libcurl sends together with the headers.
    /// A larger body makes FoundationNetworking keep a write source on the socket until the
    /// answer comes, and it spins on it (two threads, both cores here) while the server works:
    /// 2,000 notes uploaded in 8 MiB batches took 1.7–6 s of client CPU, in 48 KiB ones 0.3 s.
    var batchBytes = 48 * 1024
    /// How many upload rounds resolve stale revisions (412) before giving up for this sync.
    var maxUploadRounds = 5
    /// Receives progress lines (done, total) for a progress bar; `nil` for none.
    var progress: (@Sendable (String, Int, Int) -> Void)?
}

/// What a sync did (or, with `--dry-run`, would do): the summary line and `--json` output.
struct SyncReport: Codable, Sendable, Equatable {
    var dryRun = false
    /// Notes created or changed on the server from this folder.
    var uploaded = 0
    /// Notes written into this folder from the server.
    var downloaded = 0
    /// Notes renamed or moved (either side).
    var renamed = 0
    /// Notes deleted (either side).
    var deleted = 0
    /// Notes whose concurrent edits merged cleanly.
    var merged = 0
    /// Conflict copies made (paths relative to the folder).
    var conflicts: [String] = []
    /// Files left alone and other things the user should know.
    var warnings: [String] = []
    /// Every change made (or, dry, planned), in order: what `notes status` lists.
    var changes: [Change] = []
    /// Files whose content was read (unchanged files are recognised by metadata alone).
    var filesRead = 0
    /// Changes-feed requests made.
    var changesRequests = 0

    /// One change to one note.
    struct Change: Codable, Sendable, Equatable {
        var action: Action
        var path: String
    }

    enum Action: String, Codable, Sendable {
        case uploaded, downloaded, renamed, deleted, merged
    }

    /// Counts a change and lists it.
    mutating func add(_ action: Action, _ path: String) {
        switch action {
        case .uploaded: uploaded += 1
        case .downloaded: downloaded += 1
        case .renamed: renamed += 1
        case .deleted: deleted += 1
        case .merged: merged += 1
        }
        changes.append(Change(action: action, path: path))
    }

    /// Whether anything at all happened (or would happen).
    var isNoOp: Bool { uploaded + downloaded + renamed + deleted + merged == 0 && conflicts.isEmpty }

    /// One line for people.
    var summary: String {
        let verb = dryRun ? "Would sync" : "Synced"
        if isNoOp { return dryRun ? "Nothing to sync." : "Already up to date." }
        return "\(verb): \(uploaded) uploaded, \(downloaded) downloaded, \(renamed) renamed, \(deleted) deleted, "
            + "\(merged) merged, \(conflicts.count) conflict\(conflicts.count == 1 ? "" : "s")."
    }
}
