import Testing
@testable import NotesCore

/// `![[Note]]` and `![[Note#Heading]]` through `MarkdownExtensions.noteEmbeds`, in the default flavour.
@Suite("Note embeds in the default flavour")
struct NoteEmbedTests {
    /// A folder of notes, each embedded with the extensions a caller would give it: wiki links
    /// resolved from the embedded note, embeds of its own.
    private struct Vault {
        var notes: [String: String]
        var maximumDepth = 4
        var maximumBytes = 1 << 20

        func extensions(for path: String) -> MarkdownExtensions {
            let resolver = WikiLinkResolver(files: notes.keys)
            var extensions = MarkdownExtensions(wikiLinks: { resolver.destination(for: $0, from: path) })
            extensions.noteEmbeds = NoteEmbeds(notePath: path, maximumDepth: maximumDepth, maximumBytes: maximumBytes) { link in
                guard let target = resolver.resolve(link.target, from: path), let text = notes[target],
                      EntryKind(path: target) == .note else { return nil }
                return NoteEmbed(path: target, markdown: Array(text.utf8), extensions: self.extensions(for: target))
            }
            return extensions
        }

        func render(_ path: String) throws -> FlavouredRendering {
            try FlavouredRenderer().render(Array(notes[path, default: ""].utf8), extensions: extensions(for: path))
        }
    }

    @Test("![[Note]] alone on its line shows that note's body in the same flavour, front matter left out, with a link to it")
    func embedsWholeNote() throws {
        let vault = Vault(notes: [
            "Home.md": "# Home\n\nBefore.\n\n![[Part]]\n\nAfter.\n",
            "Part.md": "---\ntitle: The part\nstatus: draft\n---\n| a | b |\n|---|---|\n| 1 | 2 |\n\n> [!tip] Hint\n> ==text==\n",
        ])
        let html = try vault.render("Home.md").html
        #expect(html.contains("<p>Before.</p>\n<div class=\"note-embed\">\n<p><a href=\"Part.md\">Part</a></p>\n"
                              + "<div class=\"note-embed-content\">\n<table>"), "\(html)")
        #expect(html.contains("<td>1</td>") && html.contains("<p><mark>text</mark></p>"))
        #expect(html.contains("<div class=\"callout\" data-callout=\"tip\">"))
        #expect(!html.contains("status") && !html.contains("title:") && !html.contains("[[") && !html.contains("[!tip]"))
        #expect(html.contains("</div>\n</div>\n<p>After.</p>"))
    }

    @Test("![[Note#Heading]] shows that heading's section only, up to the next heading of its level or higher")
    func embedsSection() throws {
        let vault = Vault(notes: [
            "Home.md": "![[Guide#Install steps]]\n",
            "Guide.md": "# Guide\n\nIntro.\n\n## Install steps\n\nRun it.\n\n### Detail\n\nMore.\n\n## Usage\n\nUse it.\n",
        ])
        let html = try vault.render("Home.md").html
        #expect(html.contains("<a href=\"Guide.md#install-steps\">Guide &gt; Install steps</a>"))
        #expect(html.contains("<h2>Install steps</h2>\n<p>Run it.</p>\n<h3>Detail</h3>\n<p>More.</p>\n</div>"), "\(html)")
        #expect(!html.contains("Intro") && !html.contains("Use it"))
    }

    @Test("a note embedding itself, a cycle, a missing heading and an embed inside a line of text render as links")
    func cyclesRenderLinks() throws {
        let vault = Vault(notes: [
            "Self.md": "# Self\n\n![[Self]]\n",
            "A.md": "A text.\n\n![[B]]\n",
            "B.md": "B text.\n\n![[A]]\n",
            "Inline.md": "See ![[B]] here. ![[B#Nowhere]]\n\n![[B#Nowhere]]\n",
        ])
        #expect(try vault.render("Self.md").html == "<h1>Self</h1>\n<p><a href=\"Self.md\">Self</a></p>\n")
        let a = try vault.render("A.md").html
        #expect(a.contains("<div class=\"note-embed-content\">\n<p>B text.</p>\n<p><a href=\"A.md\">A</a></p>\n</div>"), "\(a)")
        let inline = try vault.render("Inline.md").html
        #expect(!inline.contains("note-embed"))
        #expect(inline.contains("<p>See <a href=\"B.md\">B</a> here. <a href=\"B.md#nowhere\">B &gt; Nowhere</a></p>"))
        #expect(inline.contains("<p><a href=\"B.md#nowhere\">B &gt; Nowhere</a></p>"))
    }

    @Test("embeds nest up to the depth bound and stop at the size bound, rendering links past them")
    func boundsHold() throws {
        var notes: [String: String] = [:]
        for level in 0..<8 { notes["N\(level).md"] = "Level \(level).\n\n![[N\(level + 1)]]\n" }
        notes["N8.md"] = "Bottom.\n"
        let deep = try Vault(notes: notes, maximumDepth: 3).render("N0.md").html
        #expect(deep.components(separatedBy: "class=\"note-embed\"").count - 1 == 3)
        #expect(deep.contains("Level 3.") && !deep.contains("Level 4."))
        #expect(deep.contains("<a href=\"N4.md\">N4</a>"))

        let small = try Vault(notes: notes, maximumBytes: 40).render("N0.md").html
        #expect(small.contains("Level 1.") && small.contains("Level 2.") && !small.contains("Level 3."), "\(small)")
    }

    @Test("script payloads in an embedded note's text, links, table cells, callout titles and front matter stay inert")
    func embeddedPayloadsAreInert() throws {
        let payload = "<script>alert(1)</script>"
        let vault = Vault(notes: [
            "Home.md": "![[Evil]]\n",
            "Evil.md": "---\ntitle: \(payload)\nx: \"\(payload)\"\n---\n> [!note] \(payload)\n> <img src=x onerror=alert(2)>\n\n"
                + "| \(payload) |\n|---|\n| [a](javascript:alert(3)) |\n\n[b](javascript:alert(4)) ==\(payload)== #\(payload)\n",
        ])
        let html = try vault.render("Home.md").html.lowercased()
        #expect(!html.contains("<script") && !html.contains("<img") && !html.contains("onerror") && !html.contains("javascript:"))
        #expect(html.contains("<div class=\"note-embed-content\">") && html.contains("<table>") && html.contains("data-callout=\"note\""))
    }

    @Test("pure CommonMark ignores note embeds: ![[Note]] is its text")
    func commonMarkHasNoEmbeds() throws {
        let vault = Vault(notes: ["Home.md": "![[Part]]\n", "Part.md": "Part.\n"])
        let html = try FlavouredRenderer(flavour: .commonMark).render(Array("![[Part]]\n".utf8), extensions: vault.extensions(for: "Home.md")).html
        #expect(!html.contains("note-embed") && !html.contains("<p>Part.</p>"))
    }
}
