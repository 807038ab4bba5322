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
        "https://example.com/a.md", "mailto:me@example.com", "//cdn.example/x.md", "#section", "", "picture.png", "b/c.txt", "javascript:a.md",
    ])
    func keepsOtherLinks(destination: String) throws {
        #expect(Self.rewriter.outcome(for: destination, in: try NotePath("b/c.md")) == .keep)
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
