import NotesCore
import Testing
@testable import notes_cli

@Suite("Export link rewriting")
struct ExportLinkRewriterTests {
    private static let rewriter = LinkRewriter(notes: ["index.md", "a.md", "b/c.md", "b/d/e.md", "Été/ça va.md", "x/100% #1.md"]
        .compactMap { try? NotePath($0) })

    @Test("links to notes become relative page links, keeping fragment and query", arguments: [
        ("a.md", "index.md", "a.html"),
        ("a.md#part", "index.md", "a.html#part"),
        ("./b/c.md?x=1#y", "index.md", "b/c.html?x=1#y"),
        ("../a.md", "b/c.md", "../a.html"),
        ("d/e.md", "b/c.md", "d/e.html"),
        ("../../b/c.md", "b/d/e.md", "../c.html"),
        ("/b/c.md", "b/d/e.md", "../c.html"),
        ("%C3%89t%C3%A9/%C3%A7a%20va.md", "a.md", "%C3%89t%C3%A9/%C3%A7a%20va.html"),
        ("x/100%25%20%231.md", "a.md", "x/100%25%20%231.html"),
        ("b/", "a.md", "index.html#folder-b"),
        ("..", "b/d/e.md", "../../index.html#folder-b"),
        ("../..", "b/d/e.md", "../../index.html"),
    ])
    func rewritesNoteLinks(destination: String, note: String, expected: String) throws {
        let path = try NotePath(note)
        #expect(Self.rewriter.outcome(for: destination, in: path) == .rewrite(expected))
    }

    @Test("external links, same-page fragments and other files are left alone", arguments: [
        "https://example.com/a.md", "mailto:me@example.com", "//cdn.example/x.md", "#section", "", "javascript:a.md",
        "../index.html", "../style.css", "../a.html#x",
    ])
    func keepsOtherLinks(destination: String) throws {
        #expect(Self.rewriter.outcome(for: destination, in: try NotePath("b/c.md")) == .keep)
    }

    @Test("a link to another file of the folder is kept and names that file, so export copies it")
    func reportsLinkedFiles() throws {
        let rewriter = LinkRewriter(notes: [try NotePath("b/c.md")], files: ["b/picture.png", "docs/a b.pdf"])
        let note = try NotePath("b/c.md")
        #expect(rewriter.outcome(for: "picture.png", in: note) == .file("b/picture.png"))
        #expect(rewriter.outcome(for: "../docs/a%20b.pdf#page=2", in: note) == .file("docs/a b.pdf"))
        #expect(rewriter.outcome(for: "/docs/a%20b.pdf", in: note) == .file("docs/a b.pdf"))
        #expect(rewriter.outcome(for: "gone.png", in: note) == .missing(reason: "there is no file b/gone.png"))
        #expect(rewriter.outcome(for: "../../x.png", in: note) == .missing(reason: "it points outside the notes folder"))
    }

    @Test("a fragment of a link to a note becomes the heading id export gives", arguments: [
        ("a.md#Some%20Heading", "a.html#some-heading"),
        ("a.md#networking", "a.html#networking"),
        ("a.md#Step-2", "a.html#step-2"),
        ("a.md?x=1#%C3%89t%C3%A9%20ici", "a.html?x=1#%C3%A9t%C3%A9-ici"),
    ])
    func slugsFragments(destination: String, expected: String) throws {
        #expect(Self.rewriter.outcome(for: destination, in: try NotePath("index.md")) == .rewrite(expected))
    }

    @Test("a .md link that is not a note, or climbs out of the folder, is reported missing", arguments: [
        "nope.md", "b/C.md", "../../a.md", "b/d.md#x",
    ])
    func reportsMissing(destination: String) throws {
        guard case .missing = Self.rewriter.outcome(for: destination, in: try NotePath("a.md")) else {
            Issue.record("\(destination) should be reported missing")
            return
        }
    }
}
