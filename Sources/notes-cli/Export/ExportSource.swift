import Foundation
import NotesCore

/// One note to export: its path and its Markdown bytes.
struct ExportNote: Sendable {
    var path: NotePath
    var content: Data
}

/// A file of the notes folder that is not a note (an image, a PDF): copied into the site as is
/// when a note links to it, or always with `--all-files`.
struct ExportFile: Sendable {
    /// Its path in the folder, NFC-normalised: also its path in the site.
    var path: String
    /// Where to read it.
    var source: URL
}

/// Every note a source holds, sorted by path, and what it had to leave out.
struct ExportNotes: Sendable {
    var notes: [ExportNote]
    /// One line per file that looked like a note but could not be exported, for stderr.
    var skipped: [String]
    /// The other files (attachments), sorted by path.
    var files: [ExportFile] = []
    /// For files from the server: the attachment each `ExportFile.source` must be downloaded
    /// from before it is read (only those the site copies are fetched).
    var downloads: [URL: NoteResource] = [:]
    /// Conflict copies (`NAME.conflict-DEVICE-TIME.md`), left out of the site: a published site
    /// should show the note, not the leftovers of a sync conflict.
    var conflictCopies: [String] = []
}

/// Where `notes export` gets notes from: a local folder (`LocalFolderSource`) or the server
/// (`RemoteSource`, `--remote`). The site is built the same way from either, so the same notes
/// give the same bytes.
protocol ExportSource: Sendable {
    /// Every note, sorted by path, each path once.
    /// - Throws: when the source cannot be read at all (a missing folder, an unreachable server).
    func notes() async throws -> ExportNotes
}

/// The notes and other files of a local folder, found by `FolderWalker` (dot-files, `.notes/`
/// and symbolic links left out, as sync does). Files that `.notesignore` or the editors'
/// temporary-file rules ignore are not offered as files to copy.
struct LocalFolderSource: ExportSource {
    var folder: String

    func notes() async throws -> ExportNotes {
        let listing: FolderWalker.Listing
        do {
            listing = try FolderWalker(root: folder, fileSuffix: "").walk()
        } catch {
            throw ExportError.unreadableFolder(path: folder, cause: error)
        }
        let root = URL(fileURLWithPath: folder)
        let ignore = IgnoreRules.folder(parsing: (try? String(contentsOf: root.appendingPathComponent(".notesignore"), encoding: .utf8)) ?? "")
        var result = ExportNotes(notes: [], skipped: listing.skipped.map { "\($0.path): \($0.reason)" })
        var seen: Set<NotePath> = []
        var seenFiles: Set<String> = []
        for entry in listing.entries {
            guard EntryKind(path: entry.path) == .note else {
                let path = entry.path.precomposedStringWithCanonicalMapping
                if !ignore.isIgnored(path), seenFiles.insert(path).inserted {
                    result.files.append(ExportFile(path: path, source: root.appendingPathComponent(entry.path)))
                }
                continue
            }
            let path: NotePath
            do {
                path = try NotePath(entry.path)
            } catch {
                result.skipped.append("\(entry.path): not a valid note path (\(error))")
                continue
            }
            if ConflictName.parse(path.value) != nil {
                result.conflictCopies.append(path.value)
                continue
            }
            // Two spellings of one name (NFC and NFD) would become one page: keep the first.
            guard seen.insert(path).inserted else {
                result.skipped.append("\(entry.path): another file has the same name once Unicode-normalised")
                continue
            }
            guard let content = FileContents.read(atPath: folder + "/" + entry.path) else {
                result.skipped.append("\(entry.path): could not be read")
                continue
            }
            result.notes.append(ExportNote(path: path, content: content))
        }
        result.notes.sort { $0.path < $1.path }
        result.files.sort { $0.path < $1.path }
        return result
    }
}
