import Foundation
import NotesCommandLine
import NotesCore

/// `notes publish PATH`: a link anyone can open to read the note, without an account.
struct PublishCommand: Command {
    static let spec = CommandSpec(
        "publish", abstract: "Publish a note: print a link anyone can open to read it",
        discussion: """
            Publishes the note at PATH and prints its link (SERVER/p/<secret>) on stdout. Anyone with
            the link can read the note, as it is now and as it changes, without an account: only the
            note, never your other notes, its history or its id. The link works until you revoke it
            with `notes unpublish`, it expires (--expires), or the note is deleted.

            The link is shown this once: the server keeps only a hash of it. Publishing the note
            again prints a new link and the old one stops working at once. The page asks search
            engines not to index it unless you pass --indexable.

            Inside a notes folder PATH is relative to the current directory; elsewhere it is the
            note's path on the server.
            """,
        usage: ["PATH [--expires DURATION] [--indexable] [--server URL] [--username NAME]"],
        options: [
            .value("expires", .duration, placeholder: "DURATION",
                   help: "Stop working after 45s, 90m, 12h, 7d, 2w or seconds (default: until revoked)"),
            .flag("indexable", help: "Let search engines index the page (default: noindex)"),
        ] + CommandSupport.spaceAccountOptions,
        positionals: [PositionalSpec("PATH", .file, help: "The note to publish")],
        epilogue: """
            Exit codes: 0 published, 1 no such note or the server refused, 2 usage error,
            4 sign-in required, 5 server unreachable.
            """)

    let argument: NoteArgument
    let expires: Int?
    let indexable: Bool

    init(_ parsed: ParsedCommand) throws {
        argument = NoteArgument(parsed)
        expires = parsed.duration("expires")
        indexable = parsed.flag("indexable")
        if let expires, expires <= 0 { throw UsageError("--expires must be more than zero") }
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        let target = try await argument.open(terminal)
        guard let note = try await target.client.note(atPath: target.path) else {
            throw CLIError.failure("no note at \(target.path.value) on the server (sync it first)")
        }
        let publication = try await target.client.publish(note.id, CreatePublicationRequest(expiresIn: expires, indexable: indexable))
        guard let url = publication.url, url.hasPrefix("/p/"), !url.contains(where: { $0.isWhitespace }) else {
            throw CLIError.failure("the server published \(target.path.value) but sent no usable link; run the command again for a new one")
        }
        // The link alone on stdout, so `LINK=$(notes publish x.md)` just works.
        terminal.print(target.client.server.string + url)
        let until = publication.expiresAt.map { "until \(HistoryTarget.shortTime($0))" } ?? "until you revoke it"
        terminal.printError("Published \(Terminal.printable(publication.path)) \(until). This is the only time the link is shown.")
        return .success
    }
}

/// `notes unpublish PATH`: the note's link stops working.
struct UnpublishCommand: Command {
    static let spec = CommandSpec(
        "unpublish", abstract: "Revoke a published note's link at once",
        discussion: """
            Revokes the link of the note at PATH (see `notes published`): from now on it shows the
            same "not found" page as a link that never existed. Inside a notes folder PATH is relative
            to the current directory; elsewhere it is the note's path on the server.
            """,
        options: CommandSupport.spaceAccountOptions,
        positionals: [PositionalSpec("PATH", .file, help: "The published note")],
        epilogue: """
            Exit codes: 0 revoked, 1 no such note or it is not published, 2 usage error,
            4 sign-in required, 5 server unreachable.
            """)

    let argument: NoteArgument

    init(_ parsed: ParsedCommand) {
        argument = NoteArgument(parsed)
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        let target = try await argument.open(terminal)
        guard let note = try await target.client.note(atPath: target.path) else {
            throw CLIError.failure("no note at \(target.path.value) on the server")
        }
        do {
            try await target.client.unpublish(note.id)
        } catch ClientError.status(let error) where error.status == 404 {
            throw CLIError.failure("\(target.path.value) is not published (see `notes published`)")
        }
        terminal.printError("Revoked the link of \(target.path.value).")
        return .success
    }
}
