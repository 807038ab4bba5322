import Foundation
import NotesCommandLine
import NotesCore

/// `notes export --html OUTDIR [DIR | --remote]`: a folder of notes, or every note on the
/// server, as a static HTML site.
struct ExportCommand: Command {
    static let name = "export"
    static let summary = "Export notes (a folder, or the server's) as a static HTML site"
    static let help = """
        Usage: notes export --html OUTDIR [DIR | --remote [--server URL] [--username NAME]] [--title TITLE] [--strict]

        Renders every note of DIR (default: the current folder), or with --remote every live
        note of your account on the server, into OUTDIR: one page per note at the mirrored path
        (a/b.md → a/b.html), index.html listing every note by folder, and style.css. A top-level
        index.md becomes the home page, above the listing. Links between notes are rewritten to
        their pages; links to missing notes are reported on stderr. Notes are rendered in safe
        mode: raw HTML is omitted and script links are emptied.

        The output depends only on the notes: the same notes give the same bytes, exported from
        a folder or from the server. Exporting again rewrites only the pages that changed and
        removes those of deleted notes; OUTDIR/.notes-export.json lists what export wrote, and
        nothing else in OUTDIR is ever replaced or removed. OUTDIR may not be DIR or inside it.
        With --remote, a path from the server that is not a valid note path is refused and
        reported, never written.

        Options:
          --html OUTDIR   Where to write the site (created if needed)
          --remote        Export the notes on the server instead of a folder (not with DIR)
          --title TITLE   The site's title on the index page (default: Notes)
          --strict        Fail, writing nothing, when a link points to a missing note
          --server URL    With --remote: the server (default: NOTES_SERVER, else the one you
                          signed in to)
          --username NAME With --remote: the account (default: the last signed in)
        """

    static func run(_ arguments: inout Arguments, terminal: Terminal) async throws -> ExitCode {
        guard let output = try arguments.option("--html") else {
            throw CLIError.usage("choose the output: --html OUTDIR")
        }
        let title = try arguments.option("--title") ?? "Notes"
        let strict = arguments.flag("--strict")
        let remote = arguments.flag("--remote")
        let account = try CommandSupport.AccountOptions.parse(&arguments)
        let folder = arguments.positional()
        try arguments.finish()
        if remote, let folder {
            throw CLIError.usage("export either the folder \(folder) or the server (--remote), not both")
        }
        if !remote, let option = account.server != nil ? "--server" : account.username != nil ? "--username" : nil {
            throw CLIError.usage("\(option) goes with --remote")
        }

        let outputURL = URL(fileURLWithPath: FolderPaths.resolved(output))
        let source: any ExportSource
        if remote {
            source = RemoteSource(client: try CommandSupport.client(account, terminal))
        } else {
            let sourcePath = try FolderPaths.existingFolder(folder ?? ".")
            if outputURL.path == sourcePath || outputURL.path.hasPrefix(sourcePath.hasSuffix("/") ? sourcePath : sourcePath + "/") {
                throw CLIError.usage("OUTDIR \(output) is inside the notes folder \(folder ?? "."); choose a folder outside it")
            }
            source = LocalFolderSource(folder: sourcePath)
        }

        let notes = try await source.notes()
        for line in notes.skipped { terminal.printError("notes export: skipped \(line)") }
        let site = try SiteBuilder(title: title).build(notes.notes)
        for link in site.missingLinks {
            terminal.printError("notes export: \(link.note) links to '\(link.destination)', but \(link.reason)")
        }
        if strict, !site.missingLinks.isEmpty {
            throw CLIError.failure("\(site.missingLinks.count) broken link(s) to notes; nothing written (--strict)")
        }
        let summary = try SiteWriter(directory: outputURL).write(site)
        for path in summary.keptEdited {
            terminal.printError("notes export: kept \(path): its note is gone but the page was edited after export")
        }
        terminal.printError("Exported \(notes.notes.count) note(s) to \(output): \(summary.written.count) written, "
                            + "\(summary.unchanged) unchanged, \(summary.removed.count) removed.")
        return .success
    }
}
