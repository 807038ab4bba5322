import Foundation
import NotesTestSupport
import Testing

/// `notes export --html` and `notes render` on a folder kept the way Obsidian, Foam and Logseq
/// keep one: wiki links, embedded images and PDFs, conflict copies. Real binary, real folders.
@Suite("notes export and render of a wiki-linked folder")
struct ExportWikiVaultTests {
    /// Bytes that are not text, so a copy that decoded or re-encoded them would show.
    private static let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A, 0x00, 0xFF, 0xFE, 0x80, 0x7F])
    private static let pdf = Data("%PDF-1.4\n%\u{E2}\u{E3}\n1 0 obj\n".utf8) + Data([0x00, 0xC3, 0x28])

    private static let notes: [(String, String)] = [
        ("Home.md", "# Home\n\nSee [[Note]], [[Note|the label]] and [[sub/Deep#My Heading]].\n\n![[diagram.png]]\n\n"
            + "Manual: ![[manual.pdf]]. Gone: [[Nowhere]]. Code: `[[Note]]`.\n\n"
            + "[faq](faq.md#Networking Setup) [plain](<faq.md#Networking Setup>) [bad](javascript:alert(1)) ![photo](img/photo.png)\n"),
        ("Note.md", "# The top note\n"),
        ("archive/Note.md", "# An older note\n"),
        ("sub/Deep.md", "# Deep\n\n## My Heading\n\n## My Heading\n\nBack [[Home]]; [[#My Heading]].\n"),
        ("faq.md", "# FAQ\n\n## Networking Setup\n\nPorts.\n"),
        ("Note.conflict-laptop-20261201-101010.md", "# The top note, other side\n"),
    ]

    private static func vault(in work: TemporaryDirectory) throws -> URL {
        let source = work.appending("vault")
        try ExportFixture.write(notes, in: source)
        try FileManager.default.createDirectory(at: source.appendingPathComponent("attachments"), withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: source.appendingPathComponent("img"), withIntermediateDirectories: true)
        try png.write(to: source.appendingPathComponent("attachments/diagram.png"))
        try png.write(to: source.appendingPathComponent("img/photo.png"))
        try pdf.write(to: source.appendingPathComponent("manual.pdf"))
        try Data("never linked".utf8).write(to: source.appendingPathComponent("unlinked.txt"))
        return source
    }

    @Test("wiki links resolve (shortest path, label, heading), embeds copy byte-identical files, headings get ids")
    func exportsVault() async throws {
        let work = try TemporaryDirectory("notes-wiki")
        defer { work.remove() }
        let source = try Self.vault(in: work), output = work.appending("site")

        let result = try await ExportFixture.export(source, to: output)
        #expect(result.exitCode == 0, "\(result.stderr)")
        let home = ExportFixture.text("Home.html", in: output)
        // `Note` is both Note.md and archive/Note.md: the shortest path wins.
        #expect(home.contains("See <a href=\"Note.html\">Note</a>, <a href=\"Note.html\">the label</a> and "
                              + "<a href=\"sub/Deep.html#my-heading\">sub/Deep &gt; My Heading</a>."))
        #expect(home.contains("<img src=\"attachments/diagram.png\" alt=\"diagram.png\" />"))
        #expect(home.contains("Manual: <a href=\"manual.pdf\">manual.pdf</a>. Gone: Nowhere. Code: <code>[[Note]]</code>."))
        #expect(!home.replacingOccurrences(of: "<code>[[Note]]</code>", with: "").contains("[["), "no raw [[...]] outside code")
        #expect(home.contains("<a href=\"faq.html#networking-setup\">plain</a>"))
        #expect(home.contains("bad <img src=\"img/photo.png\" alt=\"photo\" />"), "a javascript: link is its text")
        #expect(!home.lowercased().contains("javascript"))
        #expect(!home.contains("href=\"\""))

        // Every <img src> and linked file resolves to a copied, byte-identical file in the site.
        for (page, src) in [("Home.html", "attachments/diagram.png"), ("Home.html", "img/photo.png"), ("Home.html", "manual.pdf")] {
            #expect(ExportFixture.text(page, in: output).contains("\"\(src)\""))
            let copied = FileManager.default.contents(atPath: output.appendingPathComponent(src).path)
            #expect(copied == FileManager.default.contents(atPath: source.appendingPathComponent(src).path), "\(src)")
        }
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("unlinked.txt").path), "only linked files are copied")

        let deep = ExportFixture.text("sub/Deep.html", in: output)
        #expect(deep.contains("<h2 id=\"my-heading\">My Heading</h2>\n<h2 id=\"my-heading-1\">My Heading</h2>"))
        #expect(deep.contains("Back <a href=\"../Home.html\">Home</a>; <a href=\"#my-heading\">My Heading</a>."))
        #expect(ExportFixture.text("faq.html", in: output).contains("<h2 id=\"networking-setup\">Networking Setup</h2>"))

        // The conflict copy is left out, by name; the unresolved link is reported with its page.
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("Note.conflict-laptop-20261201-101010.html").path))
        #expect(!ExportFixture.text("index.html", in: output).contains("conflict"))
        #expect(result.stderr.contains("left out Note.conflict-laptop-20261201-101010.md: it is a conflict copy"))
        #expect(result.stderr.contains("Home.md links to '[[Nowhere]]', but it names no note or file in the folder"))
        #expect(result.stderr.contains("Exported 5 note(s) and 3 other file(s)"))

        // A second export copies nothing again; a changed image is copied again.
        let again = try await ExportFixture.export(source, to: output)
        #expect(again.stderr.contains("0 written, 10 unchanged, 0 removed"), "\(again.stderr)")
        try Data("new bytes".utf8).write(to: source.appendingPathComponent("img/photo.png"))
        let changed = try await ExportFixture.export(source, to: output)
        #expect(changed.stderr.contains("1 written, 9 unchanged, 0 removed"), "\(changed.stderr)")
        #expect(FileManager.default.contents(atPath: output.appendingPathComponent("img/photo.png").path) == Data("new bytes".utf8))
    }

    @Test("--strict fails with exit 1 and writes nothing on an unresolved wiki link or a link to a missing file")
    func strictRefusesBrokenLinks() async throws {
        let work = try TemporaryDirectory("notes-wiki")
        defer { work.remove() }
        let source = try Self.vault(in: work), output = work.appending("site")
        let unresolved = try await ExportFixture.export(source, to: output, ["--strict"])
        #expect(unresolved.exitCode == 1)
        #expect(unresolved.stderr.contains("[[Nowhere]]"))
        #expect(!FileManager.default.fileExists(atPath: output.path))

        try ExportFixture.write([("Home.md", "![missing](img/none.png)\n")], in: source)
        let missingFile = try await ExportFixture.export(source, to: output, ["--strict"])
        #expect(missingFile.exitCode == 1)
        #expect(missingFile.stderr.contains("Home.md links to 'img/none.png', but there is no file img/none.png"))
        #expect(!FileManager.default.fileExists(atPath: output.path))
    }

    @Test("--commonmark leaves [[...]] as text; --all-files copies every file but ignored ones")
    func commonMarkAndAllFiles() async throws {
        let work = try TemporaryDirectory("notes-wiki")
        defer { work.remove() }
        let source = try Self.vault(in: work), output = work.appending("site")
        try ExportFixture.write([(".notesignore", "*.secret\n"), ("keys.secret", "hidden"), ("draft.md~", "backup")], in: source)

        let result = try await ExportFixture.export(source, to: output, ["--commonmark", "--all-files"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(ExportFixture.text("Home.html", in: output).contains("See [[Note]], [[Note|the label]] and [[sub/Deep#My Heading]]."))
        #expect(!result.stderr.contains("Nowhere"))
        let files = Set(try ExportFixture.tree(output).keys)
        #expect(files.isSuperset(of: ["unlinked.txt", "manual.pdf", "attachments/diagram.png", "img/photo.png"]))
        #expect(!files.contains("keys.secret") && !files.contains("draft.md~") && !files.contains(".notesignore"))
        #expect(ExportFixture.text("unlinked.txt", in: output) == "never linked")
    }

    @Test("notes render resolves wiki links against the file's folder; --commonmark and stdin leave them as text")
    func renderResolvesInFolder() async throws {
        let work = try TemporaryDirectory("notes-wiki")
        defer { work.remove() }
        let source = try Self.vault(in: work)
        let home = source.appendingPathComponent("Home.md").path

        let resolved = try await ProcessRunner.run(BuiltProducts.client, ["render", home])
        #expect(resolved.exitCode == 0, "\(resolved.stderr)")
        #expect(resolved.stdout.contains("See <a href=\"Note.md\">Note</a>, <a href=\"Note.md\">the label</a> and "
                                         + "<a href=\"sub/Deep.md#my-heading\">sub/Deep &gt; My Heading</a>."))
        #expect(resolved.stdout.contains("<img src=\"attachments/diagram.png\" alt=\"diagram.png\" />"))
        #expect(resolved.stdout.contains("bad <img"), "a javascript: link is its text")
        #expect(resolved.stderr.contains("[[Nowhere]] names no note or file"))

        // Without a bound folder above it, sub/Deep.md resolves in sub/ alone, where `Home` is not.
        let deep = try await ProcessRunner.run(BuiltProducts.client, ["render", source.appendingPathComponent("sub/Deep.md").path])
        #expect(deep.stdout.contains("Back Home; <a href=\"#my-heading\">My Heading</a>."))

        let commonMark = try await ProcessRunner.run(BuiltProducts.client, ["render", "--commonmark", home])
        #expect(commonMark.exitCode == 0)
        #expect(commonMark.stdout.contains("See [[Note]], [[Note|the label]] and [[sub/Deep#My Heading]]."))
        #expect(commonMark.stderr.isEmpty)

        let piped = try await ProcessRunner.run(BuiltProducts.client, ["render"], stdin: "[[x]] ![[y.png]]\n")
        #expect(piped.stdout == "<p>[[x]] ![[y.png]]</p>\n")
    }

    @Test("notes render resolves against the bound folder above the file when there is one")
    func renderUsesBoundFolder() async throws {
        let work = try TemporaryDirectory("notes-wiki")
        defer { work.remove() }
        let source = try Self.vault(in: work)
        try FileManager.default.createDirectory(at: source.appendingPathComponent(".notes"), withIntermediateDirectories: true)
        let deep = try await ProcessRunner.run(BuiltProducts.client, ["render", source.appendingPathComponent("sub/Deep.md").path])
        #expect(deep.exitCode == 0, "\(deep.stderr)")
        #expect(deep.stdout.contains("Back <a href=\"../Home.md\">Home</a>; <a href=\"#my-heading\">My Heading</a>."))
        #expect(deep.stderr.isEmpty)
    }
}
