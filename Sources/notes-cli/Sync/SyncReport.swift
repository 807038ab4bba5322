import NotesCore

/// How a sync is run.
struct SyncOptions: Sendable {
    /// Decide and report, but write nothing: not the folder, not the index, not the server.
    /// The same engine runs, against `DryRunFiles` and `DryRunRemote`, so what it reports is
    /// what a real sync would do (docs/architecture.md, Sync invariants 13).
    var dryRun = false
    /// Let a sync delete all tracked notes, or more than half of them when over 20 (docs/architecture.md, Sync invariants 9).
    var allowMassDelete = false
    /// Changes per feed page; each page is applied and recorded before the next (bounded memory).
    var pageSize = 500
    /// Operations per batch, under the server's published limits.
    var batchOperations = 500
    /// The largest batch request body, in bytes as sent (JSON escapes included; a note larger
    /// alone goes alone). Kept under 64 KiB, so a batch goes in one send and the server applies
    /// one while the next arrives (see `batchesInFlight`). Counted on the wire rather than as 48 KiB of note text (about 52 KB sent), each request
    /// carries a fifth more notes, and an upload sends a fifth fewer requests.
    var batchBytes = 64_000
    /// Upload batches sent and not yet answered, at most: the client reads and writes the next
    /// while the server applies earlier ones, and the server reads the next bodies while it
    /// applies one. 10,000 notes: two → three, median 0.92 → 0.82 s; three → five, median
    /// 0.58 → 0.53 s (alternated runs; eight were no faster than five).
    var batchesInFlight = 5
    /// Whether a folder's first sync into an account with nothing to pull uploads new notes
    /// while the scan still reads (`EarlyUploads`); off only in tests that check it against the
    /// general path.
    var uploadsEarly = true
    /// How many upload rounds resolve stale revisions (412) before giving up for this sync.
    var maxUploadRounds = 5
    /// Receives progress lines (done, total) for a progress bar; `nil` for none.
    var progress: (@Sendable (String, Int, Int) -> Void)?
}

/// What a sync did, or what `notes status` (a dry run) says it would do: one shape for both, so
/// a prediction can be compared with the outcome field by field.
struct SyncReport: Codable, Sendable, Equatable {
    var dryRun = false
    /// Whether the server's side is known; `unknown` when it could not be reached (offline
    /// `notes status`: only `local` is filled in).
    var remote: RemoteSide = .known
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
    /// Conflict copies made, each with the note it belongs to and why.
    var conflicts: [Conflict] = []
    /// Every change made (or, dry, planned), in order.
    var changes: [Change] = []
    /// What changed in the folder since the last sync, found by the scan before anything else.
    var local: [LocalChange] = []
    /// Set when the mass-delete guard stops the sync (docs/architecture.md, Sync invariants 9); nothing was changed then.
    var massDelete: MassDeleteCheck?
    /// Files left alone and other things the user should know.
    var warnings: [String] = []
    /// Every file this sync left out, each with why, so a script can name them.
    var skipped: [Skipped] = []
    /// Files whose content was read (unchanged files are recognised by metadata alone).
    var filesRead = 0
    /// Changes-feed requests made.
    var changesRequests = 0

    enum RemoteSide: String, Codable, Sendable {
        case known, unknown
    }

    /// A file sync left out, and why.
    struct Skipped: Codable, Sendable, Equatable {
        enum Reason: String, Codable, Sendable {
            /// Over the server's note or attachment limit.
            case tooLarge = "too large"
            /// The account's storage quota is full.
            case quotaExceeded = "quota exceeded"
            /// It could not be read (or is a note that is not UTF-8 text).
            case unreadable
            /// `.notesignore` names it.
            case ignored
            /// Its name cannot be a path on the server: left where it is, as it is, and named at
            /// every sync until the user renames it.
            case unsyncableName = "unsyncable name"
        }
        var path: String
        var reason: Reason
        /// The particulars: the size and the limit, the error.
        var detail: String
    }

    /// Whether a file was left out that only the user can bring in (a server limit, the quota,
    /// a name sync cannot store): the sync then ends with exit 1, so a script notices although
    /// everything else synced. Exit 3 would say a conflict copy was made, and none is.
    var leftOutFilesForTheUser: Bool {
        skipped.contains { $0.reason == .tooLarge || $0.reason == .quotaExceeded || $0.reason == .unsyncableName }
    }

    /// One change to one note.
    struct Change: Codable, Sendable, Equatable {
        var action: Action
        var path: String
    }

    enum Action: String, Codable, Sendable {
        case uploaded, downloaded, renamed, deleted, merged
    }

    /// A conflict copy: `copy` keeps a version of the note at `path` that could not stay there.
    /// In a dry run, `copy` is the name it would get now (the time in it is the status's).
    struct Conflict: Codable, Sendable, Equatable {
        var path: String
        var copy: String
        var reason: ConflictReason
    }

    /// One local change since the last sync (what `git status` would say).
    struct LocalChange: Codable, Sendable, Equatable {
        enum Kind: String, Codable, Sendable {
            case new, modified, deleted, renamed
        }
        var change: Kind
        var path: String
        /// For a rename: the path at the last sync.
        var from: String?
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
    var isNoOp: Bool { uploaded + downloaded + renamed + deleted + merged == 0 && conflicts.isEmpty && massDelete == nil }

    /// One line for people.
    var summary: String {
        if let massDelete { return dryRun ? "The next sync would stop: it " + massDelete.sentence : "Stopped: this sync " + massDelete.sentence }
        let verb = dryRun ? "Would sync" : "Synced"
        if isNoOp { return dryRun ? "Nothing to sync." : "Already up to date." }
        return "\(verb): \(uploaded) uploaded, \(downloaded) downloaded, \(renamed) renamed, \(deleted) deleted, "
            + "\(merged) merged, \(conflicts.count) conflict\(conflicts.count == 1 ? "" : "s")."
    }
}

/// Why a conflict copy was made; recorded in the index when it is made, so `notes conflicts`
/// can say it later.
enum ConflictReason: String, Codable, Sendable {
    /// Both sides changed the same lines of a note (or created one path with different texts).
    case overlappingEdit = "overlapping edit"
    /// Two names that differ only in case, which one server (and macOS, Windows) cannot hold.
    case caseClash = "case clash"
    /// A local file moved to this copy under a repaired name because its own name could not be
    /// stored. Sync makes no such copy (it leaves such a file where it is, named at every sync);
    /// the reason stays so that copies in existing folders are listed and settled.
    case unsyncableName = "unsyncable name"
    /// A file in the way of a server note that cannot be a note itself (not UTF-8, too large).
    case unsyncableFile = "unsyncable file"
    /// A conflict copy made on another device and synced here: its reason stayed there.
    case madeElsewhere = "made on another device"

    /// The reason two paths that clash under the folder's rules clash.
    static func clash(_ one: String, _ other: String) -> ConflictReason {
        one == other ? .overlappingEdit : .caseClash
    }
}

/// The mass-delete guard's count, the same for `notes status` and `notes sync` (docs/architecture.md, Sync invariants 9).
struct MassDeleteCheck: Codable, Sendable, Equatable {
    enum Side: String, Codable, Sendable {
        /// Files gone from this folder would delete notes on the server.
        case local
        /// Notes deleted on the server would delete files here.
        case remote
    }
    var side: Side
    var deleting: Int
    var total: Int
    /// The folder, for the sentence.
    var folder: String

    /// "would delete N of M notes …; nothing was changed. …"
    var sentence: String {
        let why = side == .local
            ? "on the server because their files are gone from \(folder) (an emptied or unmounted folder?)"
            : "in \(folder) because they were deleted on the server"
        return "would delete \(deleting) of \(total) notes \(why); nothing was changed. If you meant it, run again with --allow-mass-delete"
    }
}

/// The mass-delete guard stopped a sync before it changed anything.
struct MassDeleteRefusal: Error, Sendable, CustomStringConvertible {
    var report: SyncReport

    /// What stopped the sync, for a person: "this sync would delete ...".
    var sentence: String { "this sync " + (report.massDelete?.sentence ?? "would delete too many notes") }

    var description: String { sentence }
}
