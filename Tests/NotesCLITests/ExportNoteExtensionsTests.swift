import Foundation
import NotesTestSupport
import Testing

/// Files ending in `.md` or `.markdown`, in any letter case, are notes; export makes
/// each one a page (`NAME.html`) and rewrites links to it, from a folder and from the server.
@Suite("notes export: every note extension")
struct ExportNoteExtensionsTests {
    private static let notes: [(path: String, content: String)] = [
        ("index.md", "# Home\n\nRead [the guide](docs/Guide.markdown#Set%20up), [todo](Todo.MD) and [[Plans]].\n"),
        ("docs/Guide.markdown", "# Guide\n\n## Set up\n\nBack [home](../index.md); ![logo](logo.png)\n"),
        ("Todo.MD", "- [ ] write [the guide](docs/Guide.markdown)\n"),
        ("Plans.Markdown", "No heading here.\n"),
    ]

    /// Checks the site `output` holds for `notes`: a page per note whatever its extension, and
    /// no note copied as a file.
    private static func expectPagesForEveryNote(in output: URL) throws {
        let files = Set(try ExportFixture.tree(output).keys)
        #expect(files == [".notes-export.json", "index.html", "style.css", "docs/Guide.html", "Todo.html", "Plans.html", "docs/logo.png"])
        let index = ExportFixture.text("index.html", in: output)
        #expect(index.contains("<a href=\"docs/Guide.html#set-up\">the guide</a>"))
        #expect(index.contains("<a href=\"Todo.html\">todo</a>"))
        #expect(index.contains("<a href=\"Plans.html\">Plans</a>"), "a wiki link resolves to the .Markdown note's page")
        #expect(index.contains("<a href=\"Plans.html\">Plans</a> <span class=\"file\">Plans.Markdown</span>"),
                "the index titles a note without a heading by its name without the extension")
        let guide = ExportFixture.text("docs/Guide.html", in: output)
        #expect(guide.contains("<title>Guide</title>") && guide.contains("<a href=\"../index.html\">home</a>"))
        #expect(guide.contains("<img src=\"logo.png\" alt=\"logo\""))
        #expect(ExportFixture.text("Todo.html", in: output).contains("<a href=\"docs/Guide.html\">the guide</a>"))
    }

    @Test("from a folder, .markdown, .MD and .Markdown notes become NAME.html pages with links rewritten like .md ones")
    func folderExportMakesPagesOfEveryNoteExtension() async throws {
        let work = try TemporaryDirectory("notes-export")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        try ExportFixture.write(Self.notes.map { ($0.path, $0.content) } + [("docs/logo.png", "png bytes")], in: source)

        let result = try await ExportFixture.export(source, to: output, ["--strict"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        try Self.expectPagesForEveryNote(in: output)
    }

    @Test("with --remote, .markdown, .MD and .Markdown notes become pages too, byte-identical to the folder's export")
    func remoteExportMakesPagesOfEveryNoteExtension() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            try await harness.createNotes(Self.notes)
            let folder = harness.home.appending("notes")
            try ExportFixture.write(Self.notes.map { ($0.path, $0.content) } + [("docs/logo.png", "png bytes")], in: folder)
            let remoteSite = harness.home.appending("remote-site"), localSite = harness.home.appending("local-site")
            // The server holds no logo: the remote site warns about it, and otherwise matches.
            let remote = try await harness.notes(["export", "--html", remoteSite.path, "--remote"])
            #expect(remote.exitCode == 0, "\(remote.stderr)")
            #expect(!remote.stderr.contains("not a valid note path"), "\(remote.stderr)")
            #expect(remote.stderr.contains("Exported 4 note(s)"), "\(remote.stderr)")
            try FileManager.default.removeItem(at: folder.appendingPathComponent("docs/logo.png"))
            let local = try await harness.notes(["export", "--html", localSite.path, folder.path])
            #expect(local.exitCode == 0, "\(local.stderr)")
            let remoteFiles = try ExportFixture.tree(remoteSite)
            #expect(Set(remoteFiles.keys) == [".notes-export.json", "index.html", "style.css", "docs/Guide.html", "Todo.html", "Plans.html"])
            #expect(remoteFiles == (try ExportFixture.tree(localSite)))
        }
    }

    @Test("two notes that would share a page (a.md and a.markdown) fail the export, naming both, and nothing is written")
    func notesSharingAPageAreRefused() async throws {
        let work = try TemporaryDirectory("notes-export")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        try ExportFixture.write([("a.md", "one\n"), ("a.markdown", "two\n")], in: source)
        let result = try await ExportFixture.export(source, to: output)
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("a.markdown and a.md would both be exported as a.html"), "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("a.html").path))
    }
}
