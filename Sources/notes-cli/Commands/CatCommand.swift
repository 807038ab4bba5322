import Foundation
import NotesCommandLine
import NotesCore

/// `notes cat`: the exact bytes of one or more notes, to stdout.
struct CatCommand: Command {
    static let spec = CommandSpec(
        "cat", abstract: "Print notes from the server",
        discussion: """
            Prints each note's exact bytes to stdout, in the order given; an attachment (any file
            that is not .md) is streamed as its exact bytes, verified against its hash, and is
            refused on a terminal (redirect it to a file). The notes are fetched
            in parallel and each is checked against its hash. A path with no note is reported on
            stderr, the others are still printed, and the exit code is 1. Inside a notes folder
            PATH is relative to the current directory and the folder's account and space are used;
            elsewhere it is the note's path on the server (in --space NAME, else the personal space).
            On a terminal, control characters other than tab and line breaks are shown as \\u{1b}
            and the like, so a note cannot steer the terminal; piped or redirected, the bytes are exact.
            """,
        usage: ["PATH... [--server URL] [--username NAME] [--space NAME]",
                "PATH --rev N [--json] [--server URL] [--username NAME] [--space NAME]"],
        options: [
            .value("rev", .int, placeholder: "N", help: """
                Print revision N of the note instead (see `notes log PATH`); also for a deleted note, and \
                for a revision from before a rename
                """),
            .flag("json", help: "With --rev: print the revision as JSON, content included"),
        ] + CommandSupport.spaceAccountOptions,
        positionals: [PositionalSpec("PATH", .file, .repeating(required: true))])

    let account: CommandSupport.AccountOptions
    let rev: Int?
    let json: Bool
    let rawPaths: [String]

    init(_ parsed: ParsedCommand) throws {
        account = CommandSupport.AccountOptions(parsed)
        rev = parsed.int("rev")
        json = parsed.flag("json")
        rawPaths = parsed.positionals("PATH")
        if let rev {
            guard rev > 0 else { throw UsageError("--rev takes a revision number from `notes log`") }
            guard rawPaths.count == 1 else { throw UsageError("--rev takes exactly one PATH") }
        } else if json {
            throw UsageError("--json goes with --rev")
        }
    }

    /// At most this many notes are fetched at once, so a long list does not open hundreds of
    /// requests together.
    static let parallelism = 32

    func run(_ terminal: Terminal) async throws -> ExitCode {
        let cwd = FileManager.default.currentDirectoryPath
        let folder = try HistoryTarget.boundFolder(around: cwd)
        let paths = try rawPaths.map { try HistoryTarget.resolve($0, in: folder, cwd: cwd) }
        let client = try await HistoryTarget.client(for: folder, account: account, terminal)
        if let rev {
            return try await Self.printRevision(Int64(rev), of: HistoryTarget(path: paths[0], folder: folder, client: client), json: json, terminal)
        }

        // Attachments are streamed in order between the notes; notes are fetched in parallel.
        let attachments = try await Self.attachments(among: paths, with: client)
        let contents = try await Self.fetch(paths.filter { attachments[$0] == nil }, with: client)
        var next = contents.makeIterator()
        var missing = false
        for path in paths {
            if let attachment = attachments[path] {
                guard try await AttachmentOutput.write(attachment, with: client, terminal) else {
                    missing = true
                    continue
                }
            } else if let content = next.next() ?? nil {
                Self.printNote(content, terminal)
            } else {
                terminal.printError("notes cat: no note at \(path.value)")
                missing = true
            }
        }
        return missing ? .failure : .success
    }

    /// `--rev`: the revision's exact bytes (or JSON), from whichever note at the path holds it.
    private static func printRevision(_ rev: Int64, of target: HistoryTarget, json: Bool, _ terminal: Terminal) async throws -> ExitCode {
        let candidates = try await target.candidates()
        guard !candidates.isEmpty else { throw target.nothingHere }
        let (_, revision) = try await target.revision(rev, among: candidates)
        if json {
            try CommandSupport.printJSON(revision, terminal)
        } else if revision.deleted {
            throw CLIError.failure("revision \(rev) of \(target.path.value) is its deletion and has no content")
        } else if revision.kind == .attachment {
            // Fetched by hash: the server keeps the content of every kept revision.
            guard try await AttachmentOutput.write(path: revision.path, hash: revision.hash, size: revision.size,
                                                   with: target.client, terminal) else { return .failure }
        } else {
            printNote(Data((revision.content ?? "").utf8), terminal)
        }
        return .success
    }

    /// A note's exact bytes into a pipe; on a terminal, with control characters other than tab
    /// and line breaks shown as text, so a note (an old version too) cannot steer the terminal.
    private static func printNote(_ content: Data, _ terminal: Terminal) {
        if terminal.stdoutIsTTY {
            terminal.write(Terminal.printable(String(decoding: content, as: UTF8.self), keepingLayout: true))
        } else {
            FileHandle.standardOutput.write(content)
        }
    }

    /// The attachments among `paths`, by path (one listing request each, before any output).
    private static func attachments(among paths: [NotePath], with client: APIClient) async throws -> [NotePath: NoteResource] {
        var found: [NotePath: NoteResource] = [:]
        for path in paths where path.kind == .attachment {
            if let entry = try await client.note(atPath: path), entry.kind == .attachment { found[path] = entry }
        }
        return found
    }

    /// Each path's bytes (nil when no note has that path), in the order of `paths`.
    /// Any other failure (sign-in, network, server error) stops the whole command.
    private static func fetch(_ paths: [NotePath], with client: APIClient) async throws -> [Data?] {
        try await withThrowingTaskGroup(of: (Int, Data?).self) { group in
            var results = [Data?](repeating: nil, count: paths.count)
            var next = 0
            func startNext() {
                guard next < paths.count else { return }
                let index = next, path = paths[index]
                next += 1
                group.addTask { (index, try await content(of: path, with: client)) }
            }
            for _ in 0..<min(parallelism, paths.count) { startNext() }
            while let (index, data) = try await group.next() {
                results[index] = data
                startNext()
            }
            return results
        }
    }

    private static func content(of path: NotePath, with client: APIClient) async throws -> Data? {
        guard let note = try await client.note(atPath: path) else { return nil }
        if note.kind == .attachment { return nil }  // streamed by `run`, never held whole
        do {
            return try await client.rawContent(of: note.id)
        } catch ClientError.status(let error) where error.status == 404 {
            return nil  // deleted between the lookup and the fetch
        }
    }
}
