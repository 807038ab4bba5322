import Foundation
import NotesCommandLine
import NotesCore

/// `notes resolve PATH --keep mine|theirs|both [--json]`: settles one conflict copy in the folder.
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
            Nothing is lost for good: the server keeps every revision of both.
            """,
        usage: ["PATH --keep mine|theirs|both [--json]"],
        options: [
            .value("keep", .choice(["mine", "theirs", "both"]), placeholder: "WHICH", help: "mine, theirs or both (required)"),
            .flag("json", help: "Print what was done as JSON"),
        ],
        positionals: [PositionalSpec("PATH", .file, help: "The conflict copy to settle, or a note with one copy")],
        epilogue: """
            Exit codes: 0 settled, 1 failure (a file changed meanwhile: nothing was changed),
            2 usage error (not a conflict copy, or a note with several copies: name one).
            """)

    let keep: Keep
    let json: Bool
    let target: String

    init(_ parsed: ParsedCommand) throws {
        json = parsed.flag("json")
        target = parsed.argument("PATH")
        guard let keep = parsed.value("keep").flatMap(Keep.init(rawValue:)) else {
            throw CLIError.usage("--keep must be mine, theirs or both")
        }
        self.keep = keep
    }

    enum Keep: String, Codable {
        case mine, theirs, both
    }

    /// What was done, for `--json`.
    struct Outcome: Codable {
        var copy: String
        var path: String
        var kept: Keep
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
        try Self.settle(copy, keep: keep, in: folder)
        try index.forgetConflict(copy: copy.copy)
        withExtendedLifetime(lock) {}
        if json {
            try CommandSupport.printJSON(Outcome(copy: copy.copy, path: copy.path, kept: keep), terminal)
        } else {
            let what = switch keep {
            case .mine: "\(copy.path) now holds the text of \(copy.copy)"
            case .theirs: "\(copy.path) stays as it was"
            case .both: "the text of \(copy.copy) was appended to \(copy.path)"
            }
            terminal.print("Settled: \(what); \(copy.copy) was removed. Run `notes sync` to carry it to the server.")
        }
        return .success
    }

    /// `path` (absolute, or relative to `current`) as a path inside `folder`.
    static func folderRelative(_ path: String, in folder: SyncFolder, from current: String) throws -> String {
        let absolute = path.hasPrefix("/") ? path : current + "/" + path
        let standard = URL(fileURLWithPath: absolute).standardizedFileURL.path
        guard standard.hasPrefix(folder.root + "/") else { throw CLIError.usage("\(path) is not inside the notes folder \(folder.root)") }
        return NotePath.nfc(String(standard.dropFirst(folder.root.count + 1)))
    }

    /// The copy `path` names: the copy itself, or the only copy of the note at `path`.
    static func choose(_ path: String, among copies: [ConflictCopy]) throws -> ConflictCopy {
        if let copy = copies.first(where: { $0.copy == path }) { return copy }
        let ofNote = copies.filter { $0.path == path }
        switch ofNote.count {
        case 1: return ofNote[0]
        case 0: throw CLIError.usage("\(path) is not a conflict copy, nor a note with one; `notes conflicts` lists them")
        default:
            throw CLIError.usage("\(path) has \(ofNote.count) conflict copies; name one: " + ofNote.map(\.copy).joined(separator: ", "))
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
