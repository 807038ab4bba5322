import Foundation
import NotesCommandLine
import NotesCore

/// A note named on the command line by PATH, for the history commands (`log`, `cat --rev`,
/// `restore`, `purge`): where PATH points, which server to ask, and which notes on that server
/// are or were at that path.
///
/// Inside a bound folder, PATH is relative to the current directory (as git takes paths), so
/// `x.md` typed in `FOLDER/sub` is the note `sub/x.md`; outside one it is a note path as stored.
struct HistoryTarget: Sendable {
    /// The folder-relative note path.
    let path: NotePath
    /// The bound folder the command runs in, if any.
    let folder: SyncFolder?
    let client: APIClient

    /// A note at the path now, or one deleted there that can still be restored.
    enum Candidate: Sendable {
        case live(NoteResource)
        case deleted(TrashEntry)

        var id: NoteID {
            switch self {
            case .live(let note): note.id
            case .deleted(let entry): entry.id
            }
        }

        /// The note's current revision (its deletion for a deleted note): the precondition of a change.
        var rev: Int64 {
            switch self {
            case .live(let note): note.rev
            case .deleted(let entry): entry.rev
            }
        }

        var isDeleted: Bool {
            if case .deleted = self { return true }
            return false
        }
    }

    /// Resolves `raw` against the current directory and picks the client.
    static func open(_ raw: String, account: CommandSupport.AccountOptions, _ terminal: Terminal) async throws -> HistoryTarget {
        let cwd = FileManager.default.currentDirectoryPath
        let folder = try boundFolder(around: cwd)
        return HistoryTarget(path: try resolve(raw, in: folder, cwd: cwd), folder: folder,
                             client: try await client(for: folder, account: account, terminal))
    }

    /// The one place that decides which server, account and space a command on notes talks to:
    /// an explicit `--server`/`--username` (and `--space`), else the account and space the bound
    /// folder belongs to (refusing, with an `AccountError`, when only another account's
    /// credentials are at hand, and refusing `--space`), else the default account (in `--space`).
    static func client(for folder: SyncFolder?, account: CommandSupport.AccountOptions, _ terminal: Terminal) async throws -> APIClient {
        if let folder, account.server == nil, account.username == nil {
            try CommandSupport.refuseSpace(account, in: folder)
            return try await CommandSupport.client(forFolder: folder, terminal).client
        }
        return try await CommandSupport.client(inSpaceOf: account, terminal)
    }

    /// The bound folder at or above `cwd`, or nil outside any (an unreadable binding is an error).
    static func boundFolder(around cwd: String) throws -> SyncFolder? {
        do {
            return try SyncFolder.find(from: cwd)
        } catch FolderLookupError.notBound {
            return nil
        }
    }

    /// The folder-relative note path that `raw` names, typed in `cwd`.
    /// - Throws: a usage error for a path outside the folder or not an entry path (any extension).
    static func resolve(_ raw: String, in folder: SyncFolder?, cwd: String) throws -> NotePath {
        var relative = raw
        if let folder {
            let absolute = raw.hasPrefix("/") ? raw : cwd + "/" + raw
            let standard = URL(fileURLWithPath: absolute).standardizedFileURL.path
            let prefix = folder.root.hasSuffix("/") ? folder.root : folder.root + "/"
            guard standard.hasPrefix(prefix) else {
                throw UsageError("'\(raw)' is outside the notes folder \(folder.root)")
            }
            relative = String(standard.dropFirst(prefix.count))
        }
        do {
            return try NotePath(entry: relative)
        } catch {
            throw UsageError("'\(raw)' is not a path of a note or attachment: \(error)")
        }
    }

    /// The notes at this path: the live one first, then deleted ones, most recently deleted first.
    ///
    /// One request after the other: the second is only worth sending once the first has
    /// answered, and a failure of the first is reported as it is.
    func candidates() async throws -> [Candidate] {
        let live = try await client.note(atPath: path)
        let deleted: [TrashEntry]
        do {
            deleted = try await client.trash(path: path.value)
        } catch ClientError.status(let error) where error.status == 400 && path.kind == .attachment && live != nil {
            // A server whose trash takes only note paths: the live attachment's history still shows.
            deleted = []
        }
        return (live.map { [Candidate.live($0)] } ?? []) + deleted.map { Candidate.deleted($0) }
    }

    /// The candidate that holds revision `rev`, with that revision (content included).
    /// - Throws: exit 1 when no note at this path has it.
    func revision(_ rev: Int64, among candidates: [Candidate]) async throws -> (Candidate, RevisionResource) {
        for candidate in candidates {
            do {
                return (candidate, try await client.revision(of: candidate.id, rev: rev))
            } catch ClientError.status(let error) where error.status == 404 {
                continue
            }
        }
        throw CLIError.failure("\(path.value) has no revision \(rev) (see `notes log \(path.value)`)")
    }

    /// The error for a path with no note, live or deleted.
    var nothingHere: CLIError {
        CLIError.failure("no note at \(path.value), live or deleted (see `notes trash`)")
    }

    /// A wire time without its milliseconds, for people: `2026-11-29T17:30:00Z`.
    static func shortTime(_ wire: String) -> String {
        guard let dot = wire.lastIndex(of: "."), wire.hasSuffix("Z") else { return wire }
        return String(wire[..<dot]) + "Z"
    }
}
