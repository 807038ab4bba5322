import Foundation
import NotesTestSupport
import Testing

/// `notes export --html` run as the real binary against real folders.
@Suite("notes export --html")
struct ExportCommandTests {
    private static let notes: [(String, String)] = [
        ("index.md", "# Welcome\n\nStart with [the plan](projects/plan.md#goals) or [all projects](projects/).\n"),
        ("projects/plan.md", "# The plan\n\n## Goals\n\nBack [home](../index.md); see [notes](<../Été/ça va.md>) and [gone](missing.md).\n"
            + "External: [site](https://example.com/x.md).\n"),
        ("Été/ça va.md", "Bien, [plan](../projects/plan.md).\n"),
        ("projects/deep/er/leaf.md", "# Leaf 🌿\n\n[Up](../../plan.md)\n"),
    ]

    @Test("a note past the rendering bound is exported as its escaped text with a notice; the others render", .timeLimit(.minutes(1)))
    func exportsHostileNoteAsText() async throws {
        let work = try TemporaryDirectory("notes-export")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        let hostile = "<script>alert(1)</script>\n" + String(repeating: ">", count: 100_000) + " x\n" + String(repeating: "[", count: 100_000) + "\n"
        try ExportFixture.write([("hostile.md", hostile), ("fine.md", "# Fine\n\n*ok*\n")], in: source)
        let result = try await ExportFixture.export(source, to: output)
        #expect(result.exitCode == 0, "\(result.stderr)")
        let page = ExportFixture.text("hostile.html", in: output)
        #expect(page.contains("<p class=\"notes-unrendered\" role=\"note\">This note is shown as plain text"))
        #expect(page.contains("<pre class=\"notes-unrendered-text\">&lt;script&gt;alert(1)&lt;/script&gt;\n&gt;&gt;&gt;"))
        #expect(!page.contains("<script>alert") && !page.contains("<blockquote>"))
        #expect(ExportFixture.text("fine.html", in: output).contains("<em>ok</em>"))
    }

    @Test("exports nested notes with Unicode names: mirrored pages, rewritten links, an index by folder")
    func exportsSite() async throws {
        let work = try TemporaryDirectory("notes-export")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        try ExportFixture.write(Self.notes + [(".notes/state.md", "# private"), ("draft.txt", "not a note")], in: source)

        let result = try await ExportFixture.export(source, to: output)
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(Set(try ExportFixture.tree(output).keys) == ["index.html", "style.css", ".notes-export.json", "projects/plan.html",
                                                            "Été/ça va.html", "projects/deep/er/leaf.html"])
        let plan = ExportFixture.text("projects/plan.html", in: output)
        #expect(plan.contains("<meta charset=\"utf-8\">"))
        #expect(plan.contains("<title>The plan</title>"))
        #expect(plan.contains("<link rel=\"stylesheet\" href=\"../style.css\">"))
        #expect(plan.contains("<a href=\"../index.html\">home</a>"))
        #expect(plan.contains("<a href=\"../%C3%89t%C3%A9/%C3%A7a%20va.html\">notes</a>"))
        #expect(plan.contains("<a href=\"missing.md\">gone</a>"))
        #expect(plan.contains("<a href=\"https://example.com/x.md\">site</a>"))
        #expect(ExportFixture.text("Été/ça va.html", in: output).contains("<title>ça va</title>"))
        #expect(ExportFixture.text("projects/deep/er/leaf.html", in: output).contains("<a href=\"../../plan.html\">Up</a>"))

        let index = ExportFixture.text("index.html", in: output)
        #expect(index.contains("<title>Welcome</title>"))
        #expect(index.contains("<a href=\"projects/plan.html#goals\">the plan</a>"))
        #expect(index.contains("<a href=\"index.html#folder-projects\">all projects</a>"))
        #expect(index.contains("<h2 id=\"folder-projects\">projects/</h2>"))
        #expect(index.contains("<li><a href=\"projects/deep/er/leaf.html\">Leaf 🌿</a> <span class=\"file\">leaf.md</span></li>"))
        #expect(index.contains("<li><a href=\"%C3%89t%C3%A9/%C3%A7a%20va.html\">ça va</a>"))
        #expect(result.stderr.contains("projects/plan.md links to 'missing.md', but there is no note projects/missing.md"))
    }

    @Test("hostile Markdown puts no script, raw HTML or unescaped title into any page")
    func hostileMarkdownIsNeutralised() async throws {
        let work = try TemporaryDirectory("notes-export")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        try ExportFixture.write([
            ("evil.md", "# <script>alert(1)</script>Title \"q\" & <b>\n\n<script>alert(2)</script>\n\n<img src=x onerror=alert(3)>\n"
                + "[a](javascript:alert(4)) [b](<JaVaScRiPt:alert(5)>) ![c](data:text/html;base64,PHNjcmlwdD4=)\n"
                + "<iframe src=\"https://evil.example\"></iframe> <a href=\"javascript:x\" onclick=\"y\">z</a>\n"),
            ("<script>.md", "plain\n"),
        ], in: source)
        let result = try await ExportFixture.export(source, to: output)
        #expect(result.exitCode == 0, "\(result.stderr)")
        for (path, bytes) in try ExportFixture.tree(output) where path.hasSuffix(".html") {
            let page = String(decoding: bytes, as: UTF8.self).lowercased()
            #expect(!page.contains("<script"), "\(path)")
            #expect(!page.contains("<iframe"), "\(path)")
            #expect(!page.contains("<img src=x"), "\(path)")
            #expect(!page.contains("onerror") && !page.contains("onclick"), "\(path)")
            #expect(!page.contains("javascript:") && !page.contains("data:text/html"), "\(path)")
        }
        #expect(ExportFixture.text("evil.html", in: output).contains("<title>alert(1)Title &quot;q&quot; &amp;</title>"))
        #expect(ExportFixture.text("index.html", in: output).contains("&lt;script&gt;.md"))
    }

    @Test("the same notes give byte-identical sites whatever the creation order, times or folder names")
    func deterministic() async throws {
        let work = try TemporaryDirectory("notes-export")
        defer { work.remove() }
        let first = work.appending("first"), second = work.appending("second-copy")
        try ExportFixture.write(Self.notes, in: first)
        try ExportFixture.write(Self.notes.reversed(), in: second)
        let old = Date(timeIntervalSince1970: 1_000_000)
        try FileManager.default.setAttributes([.modificationDate: old], ofItemAtPath: second.appendingPathComponent("index.md").path)

        #expect(try await ExportFixture.export(first, to: work.appending("out1")).exitCode == 0)
        #expect(try await ExportFixture.export(second, to: work.appending("out2")).exitCode == 0)
        let one = try ExportFixture.tree(work.appending("out1")), two = try ExportFixture.tree(work.appending("out2"))
        #expect(one.count == 6)  // 3 pages, the index (index.md), style.css, the manifest
        #expect(one == two)
    }

    @Test("a second export rewrites only changed pages, removes pages of deleted notes, and nothing else")
    func incremental() async throws {
        let work = try TemporaryDirectory("notes-export")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        try ExportFixture.write(Self.notes, in: source)
        #expect(try await ExportFixture.export(source, to: output).exitCode == 0)
        try ExportFixture.write([("mine.html", "my own page"), ("projects/deep/er/notes.txt", "keep me")], in: output)
        let leaf = try ExportFixture.inode("projects/deep/er/leaf.html", in: output)
        let cava = try ExportFixture.inode("Été/ça va.html", in: output)
        let plan = try ExportFixture.inode("projects/plan.html", in: output)

        let unchanged = try await ExportFixture.export(source, to: output)
        #expect(unchanged.stderr.contains("0 written, 5 unchanged, 0 removed"))
        #expect(try ExportFixture.inode("projects/deep/er/leaf.html", in: output) == leaf)

        try ExportFixture.write([("Été/ça va.md", "# Changed\n")], in: source)
        try FileManager.default.removeItem(at: source.appendingPathComponent("projects/deep"))
        let changed = try await ExportFixture.export(source, to: output)
        #expect(changed.exitCode == 0, "\(changed.stderr)")
        #expect(changed.stderr.contains("2 written, 2 unchanged, 1 removed"))  // the page and the index (new title)
        #expect(try ExportFixture.inode("Été/ça va.html", in: output) != cava)
        #expect(try ExportFixture.inode("projects/plan.html", in: output) == plan)
        #expect(ExportFixture.text("Été/ça va.html", in: output).contains("<h1 id=\"changed\">Changed</h1>"))
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("projects/deep/er/leaf.html").path))
        #expect(ExportFixture.text("projects/deep/er/notes.txt", in: output) == "keep me")
        #expect(ExportFixture.text("mine.html", in: output) == "my own page")
        #expect(!ExportFixture.text(".notes-export.json", in: output).contains("leaf.html"))
    }

    @Test("a file export did not write is never overwritten: the export fails before writing anything")
    func refusesForeignFiles() async throws {
        let work = try TemporaryDirectory("notes-export")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        try ExportFixture.write(Self.notes, in: source)
        try ExportFixture.write([("index.html", "my handmade home page")], in: output)
        let result = try await ExportFixture.export(source, to: output)
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("did not write: index.html"))
        #expect(try ExportFixture.tree(output) == ["index.html": Data("my handmade home page".utf8)])
    }

    @Test("refuses an OUTDIR that is the notes folder or inside it, with a usage error")
    func refusesOutputInsideSource() async throws {
        let work = try TemporaryDirectory("notes-export")
        defer { work.remove() }
        let source = work.appending("notes")
        try ExportFixture.write(Self.notes, in: source)
        for output in [source, source.appendingPathComponent("site"), source.appendingPathComponent("projects/../x/../site2")] {
            let result = try await ExportFixture.export(source, to: output)
            #expect(result.exitCode == 2)
            #expect(result.stderr.contains("inside the notes folder"))
        }
        #expect(try ExportFixture.tree(source).count == Self.notes.count)
    }

    @Test("--strict fails on a link to a missing note and writes nothing; no --html is a usage error")
    func strictAndUsage() async throws {
        let work = try TemporaryDirectory("notes-export")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        try ExportFixture.write(Self.notes, in: source)
        let strict = try await ExportFixture.export(source, to: output, ["--strict"])
        #expect(strict.exitCode == 1)
        #expect(strict.stderr.contains("missing.md"))
        #expect(!FileManager.default.fileExists(atPath: output.path))

        let usage = try await ProcessRunner.run(BuiltProducts.client, ["export", source.path])
        #expect(usage.exitCode == 2)
        #expect(usage.stderr.contains("--html OUTDIR"))
    }

    @Test("a misspelt notes folder, or a file given as one, is a usage error naming it, and nothing is written")
    func misspeltSourceIsUsageError() async throws {
        let work = try TemporaryDirectory("notes-export")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        try ExportFixture.write(Self.notes, in: source)
        let typo = work.appending("ntoes")
        let missing = try await ExportFixture.export(typo, to: output)
        #expect(missing.exitCode == 2, "\(missing.stderr)")
        #expect(missing.stderr.contains("no such folder: \(typo.path)"), "\(missing.stderr)")
        let file = try await ExportFixture.export(source.appendingPathComponent("index.md"), to: output)
        #expect(file.exitCode == 2, "\(file.stderr)")
        #expect(file.stderr.contains("not a folder"), "\(file.stderr)")
        #expect(!FileManager.default.fileExists(atPath: output.path), "no site was started")
    }
}
