import Foundation
import NotesCommandLine
import NotesCore

/// `notes restore PATH [--rev N] [--to NEWPATH]`: brings back a deleted note, or an old version
/// of a note, as a new revision on the server.
struct RestoreCommand: Command {
    static let spec = CommandSpec(
        "restore", abstract: "Bring back a deleted note or an old version",
        discussion: """
            Brings back the note deleted at PATH (its last content), or with --rev N that revision
            of the note at PATH, live or deleted (see `notes log PATH`). The server records it as a
            new revision, so nothing in the history is lost, and the next `notes sync` brings it to
            every folder. When PATH is taken now by another note, restore refuses; give --to to put
            it somewhere else. Inside a notes folder PATH and NEWPATH are relative to the current
            directory; elsewhere they are paths on the server.
            """,
        options: [
            .value("rev", .int, placeholder: "N", help: "The revision to bring back (default: a deleted note's last content)"),
            .value("to", .file, placeholder: "NEWPATH", help: "Restore at NEWPATH instead (also renames a live note)"),
            .flag("json", help: "Print {\"id\", \"path\", \"rev\", \"restored_rev\"}"),
        ] + CommandSupport.spaceAccountOptions,
        positionals: [PositionalSpec("PATH", .file)],
        epilogue: """
            Exit codes: 0 restored, 1 nothing to restore or the path is taken, 2 usage error,
            4 sign-in required, 5 server unreachable.
            """)

    let argument: NoteArgument
    let rev: Int?
    let to: String?
    let json: Bool

    init(_ parsed: ParsedCommand) throws {
        argument = NoteArgument(parsed)
        rev = parsed.int("rev")
        to = parsed.value("to")
        json = parsed.flag("json")
        if let rev, rev <= 0 { throw UsageError("--rev takes a revision number from `notes log`") }
    }

    /// The `--json` output.
    struct Output: Codable, Sendable {
        var id: NoteID
        /// Where the note is now.
        var path: String
        /// The note's new revision.
        var rev: Int64
        /// The revision whose content was brought back.
        var restoredRev: Int64
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        let target = try await argument.open(terminal)
        let destination = try to.map { try HistoryTarget.resolve($0, in: target.folder, cwd: FileManager.default.currentDirectoryPath) }

        let candidates = try await target.candidates()
        guard !candidates.isEmpty else { throw target.nothingHere }
        let note: HistoryTarget.Candidate, revision: RevisionResource
        if let rev {
            (note, revision) = try await target.revision(Int64(rev), among: candidates)
            guard !revision.deleted else {
                throw CLIError.failure("revision \(rev) of \(target.path.value) is its deletion; choose an earlier one (see `notes log \(target.path.value)`)")
            }
        } else {
            guard case .deleted(let entry)? = candidates.first(where: \.isDeleted) else {
                throw UsageError("\(target.path.value) is not deleted; to bring back an old version give --rev N (see `notes log \(target.path.value)`)")
            }
            note = .deleted(entry)
            revision = try await target.client.revision(of: entry.id, rev: entry.lastRev)
        }

        let path = destination?.value ?? {
            if case .live(let live) = note { return live.path }
            return target.path.value
        }()
        let restored: NoteResource
        do {
            if revision.kind == .attachment {
                restored = try await Self.restoreAttachment(note, revision, at: path, client: target.client)
            } else {
                let ifMatch: Int64? = note.isDeleted ? nil : note.rev
                restored = try await target.client.putNote(note.id, PutNoteRequest(path: path, content: revision.content ?? ""), ifMatch: ifMatch)
            }
        } catch ClientError.status(let error) where error.status == 409 {
            throw CLIError.failure("\(path) is taken by another note; restore it at another path with --to NEWPATH")
        } catch ClientError.status(let error) where error.status == 412 {
            throw CLIError.failure("\(target.path.value) changed on the server meanwhile; nothing was restored, run the command again")
        }
        if json {
            try CommandSupport.printJSON(Output(id: restored.id, path: restored.path, rev: restored.rev, restoredRev: revision.rev), terminal)
            return .success
        }
        if !note.isDeleted && restored.rev == note.rev {
            terminal.print("\(restored.path) already has the content of revision \(revision.rev); nothing changed")
        } else {
            terminal.print("restored \(restored.path) from revision \(revision.rev) as revision \(restored.rev); `notes sync` brings it to your folders")
        }
        return .success
    }

    /// An attachment is restored by hash: the server must still hold the revision's content
    /// (asking also holds it until the put commits), then one batch put names it.
    private static func restoreAttachment(_ note: HistoryTarget.Candidate, _ revision: RevisionResource, at path: String,
                                          client: APIClient) async throws -> NoteResource {
        let remote = APISyncRemote(client: client)
        guard try await remote.missingContent([revision.hash]).isEmpty else {
            throw CLIError.failure("the server no longer holds the content of revision \(revision.rev) of \(revision.path)")
        }
        let operation = BatchOperation(op: .put, id: note.id, path: path, ifMatch: note.rev, kind: .attachment, hash: revision.hash)
        guard let result = try await remote.batch([operation]).results.first else {
            throw CLIError.failure("the server did not answer the restore of \(revision.path)")
        }
        guard (200..<300).contains(result.status), let restored = result.note else {
            throw ClientError.status(APIStatusError(status: result.status, body: Data((result.error.map {
                APIErrorBody(code: $0.code, message: $0.message)
            } ?? APIErrorBody(code: "http_\(result.status)", message: "the restore was refused")).wireJSON())))
        }
        return restored
    }
}
