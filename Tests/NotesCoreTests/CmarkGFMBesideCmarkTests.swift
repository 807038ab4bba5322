import Testing
@testable import NotesCore

/// cmark-gfm is opened at run time beside the libcmark NotesCore links; both export the same
/// `cmark_*` names. These tests prove each library still answers with its own code.
@Suite("cmark-gfm beside libcmark in one process")
struct CmarkGFMBesideCmarkTests {
    private static let table = "| a | b |\n|:--|--:|\n| 1 | ~~2~~ |\n"
    private static let gfmTable = """
        <table>
        <thead>
        <tr>
        <th align="left">a</th>
        <th align="right">b</th>
        </tr>
        </thead>
        <tbody>
        <tr>
        <td align="left">1</td>
        <td align="right"><del>2</del></td>
        </tr>
        </tbody>
        </table>

        """
    private static let commonMarkTable = "<p>| a | b |\n|:--|--:|\n| 1 | ~~2~~ |</p>\n"

    private static func gfm(_ markdown: String, options: Int32 = 0) throws -> String {
        let library = try CmarkGFM.shared.get()
        var markdown = markdown
        return markdown.withUTF8 { bytes in
            library.exclusively { GFMDocument(parsing: bytes, options: options, extensions: CmarkGFM.extensionNames, library: library).html() }
        }
    }

    @Test("libcmark, then cmark-gfm, then libcmark again: each renders a table its own way", arguments: [false, true])
    func eachLibraryKeepsItsOwnCode(gfmFirst: Bool) throws {
        if gfmFirst { #expect(try Self.gfm(Self.table) == Self.gfmTable) }
        #expect(MarkdownRenderer.safe.html(from: Self.table) == Self.commonMarkTable)
        #expect(MarkdownRenderer.safe.render(Array(Self.table.utf8)).html == Self.commonMarkTable)
        #expect(try Self.gfm(Self.table) == Self.gfmTable)
        #expect(MarkdownRenderer.safe.html(from: Self.table) == Self.commonMarkTable)
        #expect(try Self.gfm("- [x] done\n") == "<ul>\n<li><input type=\"checkbox\" checked=\"\" disabled=\"\" /> done</li>\n</ul>\n")
    }

    @Test("many threads rendering at once each get their own correct output (cmark-gfm is used one parse at a time)")
    func concurrentRenderingIsSafe() async throws {
        // Long notes, so parses overlap: cmark-gfm changes a global table of inline characters
        // during each one, and an overlapping parse then misses strikethrough or math.
        let notes = (0..<32).map { index in
            String(repeating: "| n |\n|---|\n| \(index) ~~x~~ |\n\nText ~~gone~~ and $a_\(index)$ www.example.com\n\n", count: 300)
        }
        let outputs = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (index, note) in notes.enumerated() {
                group.addTask { (index, try FlavouredRenderer().render(Array(note.utf8)).html) }
            }
            var outputs: [Int: String] = [:]
            for try await (index, html) in group { outputs[index] = html }
            return outputs
        }
        for (index, note) in notes.enumerated() {
            let alone = try FlavouredRenderer().render(Array(note.utf8)).html
            #expect(outputs[index] == alone, "\(index)")
            #expect(alone.contains("<del>x</del>") && alone.contains("<span class=\"math math-inline\">a_\(index)</span>") && alone.contains("<table>"))
        }
    }

    @Test("the library loaded is Debian's cmark-gfm 0.29.0.gfm.6, with every GFM extension registered")
    func loadsTheDebianLibrary() throws {
        let library = try CmarkGFM.shared.get()
        #expect(library.version == "0.29.0.gfm.6")
        for name in CmarkGFM.extensionNames { #expect(library.findSyntaxExtension(name) != nil, "\(name)") }
    }

    @Test("with cmark-gfm loaded and used, libcmark still passes all 652 CommonMark 0.30 examples",
          .enabled(if: CommonMarkSpec.shouldRun, CommonMarkSpec.skipReason))
    func libcmarkStillConformsAfterCmarkGFM() throws {
        #expect(try Self.gfm(Self.table) == Self.gfmTable)
        let examples = try CommonMarkSpec.examples()
        try #require(examples.count == 652)
        let renderer = MarkdownRenderer(allowsUnsafeHTML: true)
        let failing = examples.filter { renderer.html(from: $0.markdown) != $0.html }.map(\.number)
        #expect(failing.isEmpty, "examples that differ from the spec: \(failing)")
        // cmark-gfm implements CommonMark 0.29: were its code answering, some 0.30 examples would fail.
        let gfmFailing = try examples.filter { try Self.gfm($0.markdown, options: GFMOption.unsafe) != $0.html }
        #expect(!gfmFailing.isEmpty, "cmark-gfm (0.29) should differ from 0.30 somewhere, or the two are not told apart")
    }
}
