import Foundation
import NotesTestSupport
import Testing

/// How `notes export` treats its manifest, `.notes-export.json`: what it lists is the export's
/// to replace or remove, and nothing else.
@Suite("notes export manifest")
struct ExportManifestTests {
    private static let notes: [(String, String)] = [("a.md", "# A\n"), ("sub/b.md", "# B\n")]

    @Test("a file claimed by an interrupted export (null hash) is replaced, not refused as foreign")
    func resumesInterruptedExport() async throws {
        let work = try TemporaryDirectory("notes-export")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        try ExportFixture.write(Self.notes, in: source)
        let manifest = #"{"files": {"a.html": null, "gone.html": null}, "format": 1, "generator": "notes export"}"#
        try ExportFixture.write([(".notes-export.json", manifest), ("a.html", "half-writ"), ("gone.html", "old")], in: output)

        let result = try await ExportFixture.export(source, to: output)
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(ExportFixture.text("a.html", in: output).contains("<title>A</title>"))
        #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("gone.html").path))
        #expect(!ExportFixture.text(".notes-export.json", in: output).contains("null"))
    }

    @Test("the page of a deleted note is kept, with a warning, when someone edited it after export")
    func keepsEditedPages() async throws {
        let work = try TemporaryDirectory("notes-export")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        try ExportFixture.write(Self.notes, in: source)
        #expect(try await ExportFixture.export(source, to: output).exitCode == 0)
        try ExportFixture.write([("sub/b.html", "edited by hand")], in: output)
        try FileManager.default.removeItem(at: source.appendingPathComponent("sub/b.md"))

        let result = try await ExportFixture.export(source, to: output)
        #expect(result.exitCode == 0)
        #expect(result.stderr.contains("kept sub/b.html"))
        #expect(ExportFixture.text("sub/b.html", in: output) == "edited by hand")
        #expect(!ExportFixture.text(".notes-export.json", in: output).contains("b.html"))
    }

    /// Paths a tampered manifest could name to reach outside OUTDIR, as JSON string contents.
    private static let unsafePaths = ["../notes/victim.md", "/etc/passwd", "a/../../notes/victim.md", "a/..", "..", ".",
                                      "./a.html", "a//b.html", "a/", "", #"..\\notes\\victim.md"#, #"a\u0000b"#]

    @Test("a manifest listing a path outside OUTDIR is refused and nothing is deleted", arguments: unsafePaths)
    func refusesTamperedManifest(path: String) async throws {
        let work = try TemporaryDirectory("notes-export")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        try ExportFixture.write(Self.notes + [("victim.md", "# precious\n")], in: source)
        let manifest = #"{"files": {"\#(path)": null}, "format": 1, "generator": "notes export"}"#
        try ExportFixture.write([(".notes-export.json", manifest)], in: output)

        let result = try await ExportFixture.export(source, to: output)
        #expect(result.exitCode == 1)
        #expect(result.stderr.contains("is not a manifest"))
        #expect(ExportFixture.text("victim.md", in: source) == "# precious\n")
    }

    @Test("a manifest is sorted JSON without times, and an unchanged re-export leaves it byte-identical")
    func stableManifest() async throws {
        let work = try TemporaryDirectory("notes-export")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        try ExportFixture.write(Self.notes, in: source)
        #expect(try await ExportFixture.export(source, to: output).exitCode == 0)
        let first = ExportFixture.text(".notes-export.json", in: output)
        let inode = try ExportFixture.inode(".notes-export.json", in: output)
        #expect(try await ExportFixture.export(source, to: output).exitCode == 0)
        #expect(ExportFixture.text(".notes-export.json", in: output) == first)
        #expect(try ExportFixture.inode(".notes-export.json", in: output) == inode)
        let keys = ["a.html", "index.html", "style.css", "sub/b.html"].compactMap { first.range(of: "\"\($0)\"")?.lowerBound }
        #expect(keys.count == 4 && keys == keys.sorted())
    }

    @Test("a page whose name becomes a folder in the next export is replaced by that folder")
    func pageBecomesFolder() async throws {
        let work = try TemporaryDirectory("notes-export")
        defer { work.remove() }
        let source = work.appending("notes"), output = work.appending("site")
        try ExportFixture.write([("foo.md", "# Foo\n")], in: source)
        #expect(try await ExportFixture.export(source, to: output).exitCode == 0)
        try FileManager.default.removeItem(at: source.appendingPathComponent("foo.md"))
        try ExportFixture.write([("foo.html/bar.md", "# Bar\n")], in: source)

        let result = try await ExportFixture.export(source, to: output)
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(ExportFixture.text("foo.html/bar.html", in: output).contains("<title>Bar</title>"))
    }
}
