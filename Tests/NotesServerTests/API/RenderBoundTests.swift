import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// The note of 100,000 `>`, then long lines of `*` and `[`, then 50,000 nested list items, that
/// held cmark (and a server thread) for about a minute.
private let hostileNote = String(repeating: ">", count: 100_000) + " x\n" + String(repeating: "*", count: 50_000) + "a"
    + String(repeating: "*", count: 50_000) + "\n" + String(repeating: "[", count: 100_000) + "\n"
    + String(repeating: "- ", count: 50_000) + "x\n"

/// No note ties up the server: one past the rendering bound is answered at once as its escaped
/// text with a notice, kept like any rendering; a large one is rendered off the connection
/// threads. Over real HTTP, on either backend.
@Suite("Notes API: bounded rendering")
struct RenderBoundTests {
    @Test("a note past the rendering bound is answered as its escaped text with a notice, and kept like any rendering",
          .timeLimit(.minutes(2)))
    func hostileNoteIsShownAsTextAndKept() async throws {
        try await LiveServer.with { server, api in
            let note = try await api.create("hostile.md", "<script>alert(1)</script>\n" + hostileNote)
            let fragment = try await api.send("GET", "/v1/notes/\(note.id)/html")
            #expect(fragment.status == 200 && fragment.header("ETag") == "\"\(note.rev)\"")
            #expect(fragment.text.hasPrefix("<p class=\"notes-unrendered\" role=\"note\">This note is shown as plain text"))
            #expect(fragment.text.contains("<pre class=\"notes-unrendered-text\">&lt;script&gt;alert(1)&lt;/script&gt;\n&gt;&gt;&gt;"))
            #expect(!fragment.text.contains("<script") && !fragment.text.contains("<blockquote>"))
            #expect(try await waitUntil { try TrashAndPurgeTests.keptRenderings(server.databaseLocation) == 1 }, "kept like any rendering")
            #expect(try await api.send("GET", "/v1/notes/\(note.id)/html").text == fragment.text, "and served from the kept copy")

            let page = try await api.send("GET", "/v1/notes/\(note.id)/html", query: [("standalone", "1")])
            #expect(page.text == HTMLPage(title: "hostile", bodyHTML: fragment.text).render())
        }
    }

    @Test("4 such notes asked for 8 times at once all arrive, and an ordinary note is served meanwhile", .timeLimit(.minutes(2)))
    func hostileNotesUnderConcurrencyAllArrive() async throws {
        try await LiveServer.with { _, api in
            var hostile: [NoteResource] = []
            for index in 0..<4 { hostile.append(try await api.create("hostile-\(index).md", "\(index)\n\n" + hostileNote)) }
            let ordinary = try await api.create("ordinary.md", "# Ordinary\n")
            let answers = try await withThrowingTaskGroup(of: (Int, Int, Bool).self) { group in
                for note in hostile {
                    for _ in 0..<8 {
                        group.addTask {
                            let response = try await api.send("GET", "/v1/notes/\(note.id)/html")
                            return (0, response.status, response.text.hasPrefix("<p class=\"notes-unrendered\""))
                        }
                    }
                }
                group.addTask {
                    let response = try await api.send("GET", "/v1/notes/\(ordinary.id)")
                    return (1, response.status, (try? response.decode(NoteResource.self).content) == "# Ordinary\n")
                }
                var answers: [(Int, Int, Bool)] = []
                for try await answer in group { answers.append(answer) }
                return answers
            }
            #expect(answers.count == 33)
            #expect(answers.allSatisfy { $0.1 == 200 && $0.2 }, "\(answers.filter { $0.1 != 200 || !$0.2 })")
        }
    }

    @Test("a note over 64 KiB within the bound is rendered (on the render worker) to the same HTML, fragment and page")
    func largeNoteRenders() async throws {
        try await LiveServer.with { _, api in
            let markdown = "# Large\n\n" + String(repeating: "Some *text* with [a link](other.md).\n\n", count: 3_000)
            let note = try await api.create("large.md", markdown)
            let fragment = try await api.send("GET", "/v1/notes/\(note.id)/html")
            #expect(fragment.status == 200 && fragment.header("ETag") == "\"\(note.rev)\"")
            #expect(fragment.text == (try FlavouredRenderer().render(markdown.utf8, extensions: MarkdownExtensions(headingIDs: true)).html))
            let page = try await api.send("GET", "/v1/notes/\(note.id)/html", query: [("standalone", "1")])
            #expect(page.status == 200)
            #expect(page.text == HTMLPage(title: "Large", bodyHTML: fragment.text).render())
            #expect(try await api.send("GET", "/v1/notes/\(NoteID())/html").status == 404)
        }
    }
}
