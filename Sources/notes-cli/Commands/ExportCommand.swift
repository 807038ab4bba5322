import Foundation
import NotesCommandLine
import NotesCore

/// `notes export --html OUTDIR [DIR | --remote]`: a folder of notes, or every note on the
/// server, as a static HTML site.
struct ExportCommand: Command {
    static let spec = CommandSpec(
        "export", abstract: "Export notes (a folder, or the server's) as a static HTML site",
        discussion: """
            Renders every note of DIR (default: the current folder), or with --remote every live
            note of your account on the server (of --space NAME, else your personal space), into OUTDIR: one page per note at the mirrored path
            (a/b.md → a/b.html; a note is a file ending in .md or .markdown in any letter case, so
            c.Markdown → c.html), index.html listing every note by folder, and style.css. A top-level
            index.md becomes the home page, above the listing. Notes are rendered in safe mode: raw
            HTML is omitted and a link to javascript:, vbscript:, file: or non-image data: renders
            as its text.

            Notes are read as their authors write them (see "Writing notes" in the README):
            CommonMark, GitHub's tables, task lists (disabled checkboxes), strikethrough, autolinks
            and footnotes, and Obsidian's front matter, callouts, ==highlights==, %%comments%%,
            $math$, mermaid blocks and #tags. A page is titled by its front matter's title, else
            its first heading, else its file name. Front matter that is not valid YAML shows as
            code, with a warning naming the note and line. Each tag gets a page, tags/NAME.html,
            listing the notes that carry it (or a tag under it, #project for #project/alpha), and
            index.html lists every tag; #tag links lead there.

            Links between notes are rewritten to their pages, and headings get GitHub-style ids, so
            faq.md#networking lands on its heading. Wiki links as Obsidian, Foam and Logseq write them
            work too: [[Note]], [[Note|label]], [[folder/Note#Heading]], and ![[image.png]] embeds
            (an image shows, any other file is linked). They resolve by file name, .md (else .markdown)
            implied, the shortest path winning when several files share a name. ![[Note]] and
            ![[Note#Heading]], alone on their line, show that note (or that section) in place, up to
            4 notes deep; a note embedding itself, directly or not, shows a link instead.
            --commonmark turns all of this off: pure CommonMark 0.30, [[...]] and #tags as text.
            Every file of DIR that a note links to or embeds (images, PDFs) is copied to the same
            place in OUTDIR, or every file with --all-files. A link to a missing note or file, or a
            wiki link that names none, is reported on stderr (an error with --strict). Conflict copies
            (NAME.conflict-DEVICE-TIME.md) are left out, with a warning naming them.

            The output depends only on the notes: the same notes give the same bytes, exported from
            a folder or from the server. Exporting again rewrites only the files that changed and
            removes those of deleted notes; OUTDIR/.notes-export.json lists what export wrote, and
            nothing else in OUTDIR is ever replaced or removed. OUTDIR may not be DIR or inside it.
            With --remote, attachments on the server that notes link to or embed (every one with
            --all-files) are downloaded, checked against their hashes, and copied the same way; a
            path from the server that is not a valid path is refused and reported, never written.
            """,
        usage: ["--html OUTDIR [DIR | --remote [--server URL] [--username NAME] [--space NAME]] [--title TITLE] [--strict] [--commonmark] [--all-files]"],
        options: [
            .value("html", .directory, placeholder: "OUTDIR", help: "Where to write the site (created if needed)", required: true),
            .flag("remote", help: "Export the notes and attachments on the server instead of a folder (not with DIR)"),
            .value("title", placeholder: "TITLE", default: "Notes", help: "The site's title on the index page"),
            .flag("strict", help: "Fail (exit 1), writing nothing, when a link points to a missing note or file"),
            .flag("commonmark", help: "Pure CommonMark 0.30: no tables, callouts, front matter, tags, [[wiki links]] or other extensions"),
            .flag("all-files", help: "Copy every file of DIR (but ignored ones), or every attachment with --remote, not only those notes link to"),
            .value("server", .url, placeholder: "URL", help: "With --remote: the server (default: NOTES_SERVER, else the one you signed in to)"),
            .value("username", short: "u", placeholder: "NAME", help: "With --remote: the account (default: the last signed in)"),
            .value("space", placeholder: "NAME", help: "With --remote: the space (NAME or OWNER/NAME; default: your personal space)"),
        ],
        positionals: [PositionalSpec("DIR", .directory, .optional)])

    let output: String
    let title: String
    let strict: Bool
    let remote: Bool
    let commonMark: Bool
    let allFiles: Bool
    let account: CommandSupport.AccountOptions
    let folder: String?

    init(_ parsed: ParsedCommand) throws {
        let output = parsed.value("html")
        title = parsed.value("title") ?? "Notes"
        strict = parsed.flag("strict")
        remote = parsed.flag("remote")
        commonMark = parsed.flag("commonmark")
        allFiles = parsed.flag("all-files")
        account = CommandSupport.AccountOptions(parsed)
        folder = parsed.positional("DIR")
        guard let output else { throw UsageError("choose the output: --html OUTDIR") }
        self.output = output
        if remote, let folder {
            throw UsageError("export either the folder \(folder) or the server (--remote), not both")
        }
        if !remote, let option = account.server != nil ? "--server" : account.username != nil ? "--username"
            : account.space != nil ? "--space" : nil {
            throw UsageError("\(option) goes with --remote")
        }
    }

    /// Prints `lines` to stderr in one write where that gives the same bytes: a folder with
    /// thousands of broken links (a copied-in manual) spent more on one `write(2)` per line than
    /// on rendering. A line ending in a carriage return would join with the next line's newline
    /// and print differently (`printError` makes a lone one visible), so then each goes alone.
    private static func printErrors(_ lines: [String], _ terminal: Terminal) {
        guard !lines.isEmpty else { return }
        if lines.contains(where: { $0.utf8.last == 0x0D }) {
            for line in lines { terminal.printError(line) }
        } else {
            terminal.printError(lines.joined(separator: "\n"))
        }
    }

    func run(_ terminal: Terminal) async throws -> ExitCode {
        let outputURL = URL(fileURLWithPath: FolderPaths.resolved(output))
        let source: any ExportSource
        let staging = FileManager.default.temporaryDirectory.appendingPathComponent("notes-export-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: staging) }
        if remote {
            source = RemoteSource(client: try await CommandSupport.client(inSpaceOf: account, terminal), staging: staging)
        } else {
            let sourcePath = try FolderPaths.existingFolder(folder ?? ".")
            if outputURL.path == sourcePath || outputURL.path.hasPrefix(sourcePath.hasSuffix("/") ? sourcePath : sourcePath + "/") {
                throw UsageError("OUTDIR \(output) is inside the notes folder \(folder ?? "."); choose a folder outside it")
            }
            source = LocalFolderSource(folder: sourcePath)
        }

        let notes = try await source.notes()
        for line in notes.skipped { terminal.printError("notes export: skipped \(line)") }
        for path in notes.conflictCopies {
            terminal.printError("notes export: left out \(path): it is a conflict copy (see notes conflicts)")
        }
        let builder = SiteBuilder(title: title, commonMark: commonMark, allFiles: allFiles)
        let site = try builder.build(notes.notes, files: notes.files)
        Self.printErrors(site.warnings.map { "notes export: warning: \($0)" }, terminal)
        Self.printErrors(site.missingLinks.map { "notes export: \($0.note) links to '\($0.destination)', but \($0.reason)" }, terminal)
        if strict, !site.missingLinks.isEmpty {
            throw ExportError.brokenLinks(count: site.missingLinks.count)
        }
        if let remote = source as? RemoteSource {
            // Only the attachments the site copies are downloaded, each once.
            let needed = site.files.compactMap { file -> URL? in if case .copy(let url) = file.content { url } else { nil } }
            try await remote.download(needed, of: notes.downloads)
        }
        let summary = try SiteWriter(directory: outputURL).write(site)
        for path in summary.keptEdited {
            terminal.printError("notes export: kept \(path): its note is gone but the page was edited after export")
        }
        let copied = site.files.count { if case .copy = $0.content { true } else { false } }
        let others = copied > 0 ? " and \(copied) other file(s)" : ""
        terminal.printError("Exported \(notes.notes.count) note(s)\(others) to \(output): \(summary.written.count) written, "
                            + "\(summary.unchanged) unchanged, \(summary.removed.count) removed.")
        return .success
    }
}
