import Testing
@testable import NotesCore

@Suite("cmark-gfm trees: the walk and the arena they live in")
struct GFMDocumentTests {
    @Test("the walk joins text left beside text into one node, as cmark-gfm's consolidation does, and visits what follows")
    func walkJoinsAdjacentText() throws {
        let library = try CmarkGFM.shared.get()
        let (visited, html) = library.exclusively { () -> ([String], String) in
            var markdown = "a *b*\n\nc\n"
            return markdown.withUTF8 { bytes in
                let document = GFMDocument(parsing: bytes, options: 0, extensions: [], library: library)
                // A pass may leave text beside text: here "a " is followed by two more text nodes.
                let paragraph = document.firstChild(of: document.root)!
                let first = document.firstChild(of: paragraph)!
                let emphasis = document.next(after: first)!
                document.insert(document.newText("x")!, before: emphasis)
                document.insert(document.newText("y")!, before: emphasis)
                var visited: [String] = []
                document.forEachNode(joiningText: true) { node, event, type, _ in
                    if event == GFMEvent.enter, type == GFMNodeType.text { visited.append(document.literal(of: node) ?? "") }
                }
                return (visited, document.html())
            }
        }
        #expect(visited == ["a xy", "b", "c"])
        #expect(html == "<p>a xy<em>b</em></p>\n<p>c</p>\n")
    }

    @Test("a thousand renders in a row, each freeing its trees at once, give the same HTML as the first")
    func arenaIsReusedRenderAfterRender() throws {
        // Every node the flavour adds (tags, highlights, callouts, math, embeds' links) must be
        // made in the arena its tree lives in, or cmark-gfm refuses to insert it.
        let note = Array("> [!tip] T\n> ==mark== #tag $x^2$ ~~gone~~ www.example.com\n\n| a |\n|---|\n| 1 |\n".utf8)
        let first = try FlavouredRenderer().render(note)
        #expect(first.html.contains("<mark>mark</mark>") && first.html.contains("class=\"tag\"") && first.html.contains("math"))
        var same = 0
        for _ in 0..<1_000 {
            if try FlavouredRenderer().render(note) == first { same += 1 }
        }
        #expect(same == 1_000)
    }
}
