import Testing
@testable import notes_cli

/// `SitePaths.href`'s byte-level path for ASCII paths against the String routine it replaced.
@Suite("notes export site paths")
struct ExportSitePathsTests {
    private static let paths = [
        "index.html", "style.css", "a.html", "a/b.html", "a/b/c.html", "a/c/d.html", "ab/c.html", "a-b/c.html", "x/y/z/w.html",
        "a//b.html", "/a.html", "a/", "", "sp ace/h#sh?.html", "100%/x.html", "é/ü.html", "e\u{301}/x.html", "a/\u{301}b.html",
        "日本/語.html", "a/b/c/d/e.html",
    ]

    @Test("every pair of paths gives the href the String routine gives")
    func matchesStringRoutine() {
        for from in Self.paths {
            for to in Self.paths where !to.isEmpty {
                #expect(SitePaths.href(from: from, to: to) == SitePaths.unicodeHref(from: from, to: to), "\(from) → \(to)")
            }
        }
        #expect(SitePaths.href(from: "a/b/c.html", to: "a/d/e f.html") == "../d/e%20f.html")
        #expect(SitePaths.href(from: "a/b.html", to: "style.css") == "../style.css")
        #expect(SitePaths.href(from: "index.html", to: "a/b.html") == "a/b.html")
    }
}
