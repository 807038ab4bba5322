import Foundation
import NotesCore
import Testing
@testable import NotesServer

/// Names with characters that show as nothing, or reorder the text after them, are marked
/// visibly wherever the web app shows a name, and stay exact where they are values.
@Suite("Web app: hidden characters in names are shown")
struct WebHiddenCharactersTests {
    static let zeroWidthMark = "<span class=\"char-mark\" title=\"U+200B ZERO WIDTH SPACE\">⟨U+200B⟩</span>"
    static let rightToLeftMark = "<span class=\"char-mark\" title=\"U+200F RIGHT-TO-LEFT MARK\">⟨U+200F⟩</span>"

    @Test("a zero-width space in a name stays in the text and gets a visible mark; a direction mark is replaced by its mark")
    func marksHiddenCharacters() {
        #expect(HTML.name("pass\u{200B}words").description == "pass\u{200B}" + Self.zeroWidthMark + "words")
        #expect(HTML.name("\u{05E9}\u{200F}invoice").description == "\u{05E9}" + Self.rightToLeftMark + "invoice")
        #expect(HTML.name("evil\u{202E}dm.exe").description.contains("⟨U+202E⟩"))
        #expect(!HTML.name("evil\u{202E}dm.exe").description.unicodeScalars.contains("\u{202E}"), "an override never reaches the page")
        // What scripts join with is left as it is: emoji families and Persian words read as written.
        let family = "family \u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}"
        #expect(HTML.name(family).description == family)
        #expect(HTML.name("a<b>&\u{200B}").description == "a&lt;b&gt;&amp;\u{200B}" + Self.zeroWidthMark)
    }

    @Test("the home page, a note, its history and search show the marks in the names; the stored name is unchanged")
    func pagesShowTheMarks() async throws {
        try await TestApp.with { app in
            let path = "pass\u{200B}words/\u{05E9}\u{200F}invoice.md"
            let id = try app.addNote(path, "# zebra\n")
            let browser = WebBrowser(app)
            try await browser.signIn()
            let home = await browser.get("/")
            #expect(home.body.contains("<summary>pass\u{200B}" + Self.zeroWidthMark + "words</summary>"), "the folder in the tree")
            #expect(home.body.contains("\u{05E9}" + Self.rightToLeftMark + "invoice</a>"), "the note's title")
            let note = await browser.get("/notes/\(id)")
            #expect(note.body.contains("<h1>\u{05E9}" + Self.rightToLeftMark + "invoice</h1>"))
            #expect(note.body.contains("pass\u{200B}" + Self.zeroWidthMark + "words"), "the folder in the crumbs")
            #expect(await browser.get("/notes/\(id)/history").body.contains("History of \u{05E9}" + Self.rightToLeftMark + "invoice</h1>"))
            let search = await browser.get("/search", query: ["q": "zebra"])
            #expect(search.body.contains("\u{05E9}" + Self.rightToLeftMark + "invoice</a>"))
            // The rename form's value is the name itself, exact, for the user to edit; beside it, marked.
            let rename = await browser.get("/notes/\(id)/rename")
            #expect(rename.body.contains("value=\"\(path)\""))
            #expect(rename.body.contains("<code>pass\u{200B}" + Self.zeroWidthMark + "words/"))
            #expect(try app.note(id)?.path == path)
        }
    }

    @Test("a name with markup and a hidden character is escaped on every page that marks it")
    func markedNamesAreEscaped() async throws {
        try await TestApp.with { app in
            let id = try app.addNote("x<script>window.x=1</script>\u{200B}<img src=x onerror=alert(1)>/n\u{200B}.md", "# zebra\n")
            let browser = WebBrowser(app)
            try await browser.signIn()
            let pages = [await browser.get("/"), await browser.get("/notes/\(id)"), await browser.get("/notes/\(id)/history"),
                         await browser.get("/search", query: ["q": "zebra"])]
            for page in pages {
                #expect(!page.body.contains("<script>window") && !page.body.contains("<img src=x onerror"))
                #expect(page.body.contains("⟨U+200B⟩"))
            }
        }
    }
}
