import Foundation
import NotesCore

/// One note to export: its path and its Markdown bytes.
struct ExportNote: Sendable {
    var path: NotePath
    var content: Data
}

/// Every note a source holds, sorted by path, and what it had to leave out.
struct ExportNotes: Sendable {
    var notes: [ExportNote]
    /// One line per file that looked like a note but could not be exported, for stderr.
    var skipped: [String]
}

/// Where `notes export` gets notes from: a local folder (`LocalFolderSource`) or the server
/// (`RemoteSource`, `--remote`). The site is built the same way from either, so the same notes
/// give the same bytes.
protocol ExportSource: Sendable {
    /// Every note, sorted by path, each path once.
    /// - Throws: when the source cannot be read at all (a missing folder, an unreachable server).
    func notes() async throws -> ExportNotes
}

/// The notes of a local folder, found by `FolderWalker` (dot-files, `.notes/` and symbolic links
/// left out, as sync does).
struct LocalFolderSource: ExportSource {
    var folder: String

    func notes() async throws -> ExportNotes {
        let listing: FolderWalker.Listing
        do {
            listing = try FolderWalker(root: folder).walk()
        } catch {
            throw CLIError.failure(error.description)
        }
        var skipped = listing.skipped.map { "\($0.path): \($0.reason)" }
        var notes: [ExportNote] = []
        var seen: Set<NotePath> = []
        notes.reserveCapacity(listing.entries.count)
        for entry in listing.entries {
            let path: NotePath
            do {
                path = try NotePath(entry.path)
            } catch {
                skipped.append("\(entry.path): not a valid note path (\(error))")
                continue
            }
            // Two spellings of one name (NFC and NFD) would become one page: keep the first.
            guard seen.insert(path).inserted else {
                skipped.append("\(entry.path): another file has the same name once Unicode-normalised")
                continue
            }
            let url = URL(fileURLWithPath: folder).appendingPathComponent(entry.path)
            guard let content = FileManager.default.contents(atPath: url.path) else {
                skipped.append("\(entry.path): could not be read")
                continue
            }
            notes.append(ExportNote(path: path, content: content))
        }
        notes.sort { $0.path < $1.path }
        return ExportNotes(notes: notes, skipped: skipped)
    }
}
