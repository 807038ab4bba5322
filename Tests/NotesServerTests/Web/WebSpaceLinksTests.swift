import Testing
@testable import NotesServer

/// A page written for the personal space, shown in a shared one, links, posts and previews
/// inside that space; its links elsewhere and its text stay as they are.
@Suite("Web space links")
struct WebSpaceLinksTests {
    let links = WebSpaceLinks(base: WebSpace.base(of: 42))

    @Test("addresses of mirrored pages get the space's prefix, in every attribute")
    func mirroredPagesMove() {
        let page = """
            <a href="/">Notes</a><a href="/notes/abc?x=1">n</a><form action="/new"><img src="/files/a%20b.png">\
            <textarea data-preview-url="/preview"><a href="/trash#top">t</a><a href="/?done=left">h</a>
            """
        #expect(links.rewrite(page) == """
            <a href="/s/42/">Notes</a><a href="/s/42/notes/abc?x=1">n</a><form action="/s/42/new"><img src="/s/42/files/a%20b.png">\
            <textarea data-preview-url="/s/42/preview"><a href="/s/42/trash#top">t</a><a href="/s/42/?done=left">h</a>
            """)
    }

    @Test("the account's pages, assets, other sites and escaped text are left alone")
    func othersStay() {
        let page = """
            <a href="/account">a</a><link href="/assets/notes.1.css"><a href="//evil.example/notes">e</a>\
            <a href="https://example.org/notes">x</a><p>href=&quot;/notes in a note&#39;s text</p><a href="/notesy">y</a>
            """
        #expect(links.rewrite(page) == page)
    }

    @Test("a redirect to a mirrored page stays in the space; one to the account does not")
    func locations() {
        #expect(links.rewrite(location: "/notes/abc?done=saved") == "/s/42/notes/abc?done=saved")
        #expect(links.rewrite(location: "/?done=deleted") == "/s/42/?done=deleted")
        #expect(links.rewrite(location: "/account") == "/account")
    }
}
