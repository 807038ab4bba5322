import Foundation
import NotesCommandLine
import NotesCore

/// `notes resolve PATH --keep mine|theirs|both | --rename-to NAME [--json]`: settles one conflict
/// copy in the folder.
struct ResolveCommand: Command {
    static let spec = CommandSpec(
        "resolve", abstract: "Settle a conflict copy",
        discussion: """
            Settles the conflict copy PATH (relative to the current folder, inside a notes folder),
            or the only conflict copy of the note PATH, in the folder; the next `notes sync` carries
            the result to the server and every other folder:
              --keep mine    the copy's text replaces the note; the copy is deleted
              --keep theirs  the note stays as it is; the copy is deleted
              --keep both    the copy's text is appended to the note under a marker line
                             (<!-- notes resolve: kept both ... -->); the copy is deleted
              --rename-to NAME
                             the copy becomes a note of its own at NAME (relative to the
                             current folder, a name sync can store, not taken)
            When sync cannot store the note's own name (a backslash, a control character, a
            direction override), --keep mine and --keep both refuse: the name would come back and
            the next sync would leave it out. `notes conflicts` suggests a name for --rename-to.
            Nothing is lost for good: the server keeps every revision of both.
            """,
        usage: ["PATH --keep mine|theirs|both [--json]", "PATH --rename-to NAME [--json]"],
        options: [
            .value("keep", .choice(["mine", "theirs", "both"]), placeholder: "WHICH", help: "mine, theirs or both"),
            .value("rename-to", .file, placeholder: "NAME", help: "Keep the copy's text as a note of its own at NAME"),
            .flag("json", help: "Print what was done as JSON"),
        ],
        positionals: [PositionalSpec("PATH", .file, help: "The conflict copy to settle, or a note with one copy")],
        epilogue: """
            Exit codes: 0 settled, 1 failure (a file changed meanwhile: nothing was changed),
            2 usage error (not a conflict copy, or a note with several copies: name one; a name
            sync cannot store; --keep and --rename-to both or neither given).
            """)

    let settlement: Settlement
    let json: Bool
    let target: String

    init(_ parsed: ParsedCommand) throws {
        json = parsed.flag("json")
        target = parsed.argument("PATH")
        switch (parsed.value("keep"), parsed.value("rename-to")) {
        case (let keep?, nil):
            guard let keep = Keep(rawValue: keep) else { throw UsageError("--keep must be mine, theirs or both") }
            settlement = .keep(keep)
        case (nil, let name?):
            settlement = .rename(name)
        case (nil, nil):
            throw UsageError("say how to settle it: --keep mine|theirs|both, or --rename-to NAME")
        case (.some, .some):
            throw UsageError("--keep and --rename-to settle a copy in different ways: give one")
        }
    }

    enum Keep: String, Codable {
        case mine, theirs, both
    }

    /// How the copy is settled.
    enum Settlement {
        /// Into the note, or dropped (`--keep`).
        case keep(Keep)
        /// As a note of its own at this name, as given (`--rename-to`).
        case rename(String)
    }

    /// What was done, for `--json`: `kept` for `--keep`, `renamed_to` for `--rename-to`.
    struct Outcome: Codable {
        var copy: String
        var path: String
        var kept: Keep?
        var renamedTo: String?
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        let current = FileManager.default.currentDirectoryPath
        let folder = try SyncFolder.find(from: current)
        let relative = try Self.folderRelative(target, in: folder, from: current)
        let lock = try SyncLock(path: folder.lockPath)
        let index = try folder.openIndex()
        defer { try? index.close() }
        let copies = try ConflictCopies.list(in: folder, index: index)
        let copy = try Self.choose(relative, among: copies)
        let outcome: Outcome
        switch settlement {
        case .keep(let keep):
            if keep != .theirs, let problem = copy.unsyncableNote {
                let name = copy.renameTo ?? "NAME"
                throw UsageError("""
                    sync cannot store the name \(Terminal.printable(copy.path)) (\(problem)); keeping the copy there would bring \
                    that name back and the next sync would leave it out. Keep its text under a name that syncs: \
                    notes resolve \(Terminal.printable(copy.copy)) --rename-to \(Terminal.printable(name))
                    """)
            }
            try Self.settle(copy, keep: keep, in: folder)
            outcome = Outcome(copy: copy.copy, path: copy.path, kept: keep)
        case .rename(let name):
            let target = try Self.folderRelative(name, in: folder, from: current)
            if let problem = EntryName.newEntryProblem(target) {
                throw UsageError("\(Terminal.printable(name)) cannot be synced: \(problem); choose another name")
            }
            try Self.rename(copy, to: target, in: folder)
            outcome = Outcome(copy: copy.copy, path: copy.path, renamedTo: target)
        }
        try index.forgetConflict(copy: copy.copy)
        withExtendedLifetime(lock) {}
        if json {
            try CommandSupport.printJSON(outcome, terminal)
        } else {
            let note = terminal.shownName(copy.path), copyName = terminal.shownName(copy.copy)
            let what = switch settlement {
            case .keep(.mine): "\(note) now holds the text of \(copyName); \(copyName) was removed"
            case .keep(.theirs): "\(note) stays as it was; \(copyName) was removed"
            case .keep(.both): "the text of \(copyName) was appended to \(note); \(copyName) was removed"
            case .rename: "\(copyName) is the note \(terminal.shownName(outcome.renamedTo ?? ""))"
            }
            terminal.print("Settled: \(what). Run `notes sync` to carry it to the server.")
        }
        return .success
    }

    /// Moves the copy to `target`, which must be free: a note of its own, synced as a rename
    /// of the copy (the same text under another name).
    static func rename(_ copy: ConflictCopy, to target: String, in folder: SyncFolder) throws {
        let files = SafeFiles(root: folder.root, scratch: folder.scratchDirectory)
        do {
            guard try files.occupant(target) == .none else {
                throw UsageError("\(Terminal.printable(target)) is taken; choose another name")
            }
            guard case .file(let stat) = try files.occupant(copy.copy),
                  try files.move(copy.copy, to: target, expecting: stat) != nil else {
                throw CLIError.failure("\(copy.copy) or \(target) changed while being settled; nothing was changed, try again")
            }
            files.flush()
        } catch let error as SyncFileError {
            throw CLIError.failure("\(error)")
        }
    }

    /// `path` (absolute, or relative to `current`) as a path inside `folder`.
    static func folderRelative(_ path: String, in folder: SyncFolder, from current: String) throws -> String {
        let absolute = path.hasPrefix("/") ? path : current + "/" + path
        let standard = URL(fileURLWithPath: absolute).standardizedFileURL.path
        guard standard.hasPrefix(folder.root + "/") else { throw UsageError("\(path) is not inside the notes folder \(folder.root)") }
        return NotePath.nfc(String(standard.dropFirst(folder.root.count + 1)))
    }

    /// The copy `path` names: the copy itself, or the only copy of the note at `path`.
    static func choose(_ path: String, among copies: [ConflictCopy]) throws -> ConflictCopy {
        if let copy = copies.first(where: { $0.copy == path }) { return copy }
        let ofNote = copies.filter { $0.path == path }
        switch ofNote.count {
        case 1: return ofNote[0]
        case 0: throw UsageError("\(path) is not a conflict copy, nor a note with one; `notes conflicts` lists them")
        default:
            throw UsageError("\(path) has \(ofNote.count) conflict copies; name one: " + ofNote.map(\.copy).joined(separator: ", "))
        }
    }

    /// Carries out `keep` with the folder's safe file operations: each write or removal checks
    /// that the file is still as read, so an edit made meanwhile is never overwritten.
    static func settle(_ copy: ConflictCopy, keep: Keep, in folder: SyncFolder) throws {
        let files = SafeFiles(root: folder.root, scratch: folder.scratchDirectory)
        try? FileManager.default.createDirectory(atPath: folder.scratchDirectory, withIntermediateDirectories: true)
        let changed = CLIError.failure("\(copy.path) or \(copy.copy) changed while being settled; nothing was changed, try again")
        do {
            let theirs = try files.read(copy.copy)
            if keep != .theirs {
                let note: (bytes: [UInt8], stat: FileStat)? = switch try files.occupant(copy.path) {
                case .file: try files.read(copy.path)
                case .none: nil
                case .other: throw CLIError.failure("\(copy.path) is not a file; nothing was changed")
                }
                var text = theirs.bytes
                if keep == .both, let note, !note.bytes.isEmpty {
                    text = note.bytes
                    if text.last != UInt8(ascii: "\n") { text.append(UInt8(ascii: "\n")) }
                    text += Array("\n<!-- notes resolve: kept both; the text of \(copy.copy) follows -->\n\n".utf8)
                    text += theirs.bytes
                }
                guard try files.write(text, to: copy.path, expecting: note.map { .file($0.stat) } ?? .absent) != nil else { throw changed }
            }
            guard try files.remove(copy.copy, expecting: theirs.stat) else { throw changed }
            files.flush()
        } catch let error as SyncFileError {
            throw CLIError.failure("\(error)")
        }
    }
}
