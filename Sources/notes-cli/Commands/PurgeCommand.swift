import Foundation
import NotesCommandLine
import NotesCore

/// `notes purge PATH`: removes a note and every revision of it from the server for good.
struct PurgeCommand: Command {
    static let spec = CommandSpec(
        "purge", abstract: "Remove a note and all its history from the server for good",
        discussion: """
            Removes the note at PATH (live or deleted) and every revision of it from the server
            for good, as for a pasted secret: it cannot be restored afterwards and search no longer
            finds it. A live note is deleted first, so the next `notes sync` deletes it from every
            folder too (a folder where it was edited meanwhile keeps its edit and uploads it again).
            Asks for confirmation on a terminal; without one, --yes is required.

            Inside a notes folder PATH is relative to the current directory; elsewhere it is the
            note's path on the server. When several notes had PATH (a live one and deleted ones),
            choose one with --rev and any revision number of it (see `notes log`, `notes trash`).
            """,
        options: [
            .value("rev", .int, placeholder: "N", help: "Purge the note that holds revision N"),
            .flag("yes", short: "y", help: "Do not ask (required when stdin is not a terminal)"),
            .flag("json", help: "Print {\"id\", \"path\", \"purged_revisions\", \"rev\"}"),
        ] + CommandSupport.spaceAccountOptions,
        positionals: [PositionalSpec("PATH", .file)],
        epilogue: """
            Exit codes: 0 purged, 1 no such note or not confirmed, 2 usage error (also: no --yes
            without a terminal), 4 sign-in required, 5 server unreachable.
            """)

    let argument: NoteArgument
    let rev: Int?
    let yes: Bool
    let json: Bool

    init(_ parsed: ParsedCommand) throws {
        argument = NoteArgument(parsed)
        rev = parsed.int("rev")
        yes = parsed.flag("yes")
        json = parsed.flag("json")
        if let rev, rev <= 0 { throw UsageError("--rev takes a revision number from `notes log` or `notes trash`") }
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        guard yes || terminal.stdinIsTTY else {
            throw UsageError("purging cannot be undone: confirm with --yes (stdin is not a terminal to ask on)")
        }
        let target = try await argument.open(terminal)
        let candidates = try await target.candidates()
        let note: HistoryTarget.Candidate
        if let rev {
            note = try await target.revision(Int64(rev), among: candidates).0
        } else {
            guard let only = candidates.first else { throw target.nothingHere }
            guard candidates.count == 1 else {
                let list = candidates.map { $0.isDeleted ? "a deleted one (rev \($0.rev))" : "the live one (rev \($0.rev))" }
                throw UsageError("\(candidates.count) notes had \(target.path.value): \(list.joined(separator: ", ")); choose one with --rev")
            }
            note = only
        }
        if !yes {
            let count = try await target.client.revisions(of: note.id).count
            let what = note.isDeleted ? "the deleted note \(target.path.value)" : target.path.value
            guard let answer = SecretPrompt.readVisible(prompt: "Purge \(what) and its \(count) revision\(count == 1 ? "" : "s") from the server for good? It cannot be restored. [y/N] "),
                  ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased()) else {
                throw CLIError.failure("nothing was purged")
            }
        }
        let result: PurgeResult
        do {
            result = try await target.client.purge(note.id, ifMatch: note.rev)
        } catch ClientError.status(let error) where error.status == 412 {
            throw CLIError.failure("\(target.path.value) changed on the server meanwhile; nothing was purged, run the command again")
        }
        if json {
            try CommandSupport.printJSON(result, terminal)
            return .success
        }
        let count = result.purgedRevisions
        terminal.print("purged \(result.path): \(count) revision\(count == 1 ? "" : "s") removed from the server for good"
                       + (note.isDeleted ? "" : "; `notes sync` deletes it from your folders"))
        return .success
    }
}
