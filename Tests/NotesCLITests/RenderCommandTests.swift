import Foundation
import NotesCore
import NotesTestSupport
import Testing

/// `notes render` run as the real binary, the way scripts pipe Markdown through it.
@Suite("notes render")
struct RenderCommandTests {
    @Test("renders a file to the HTML fragment cmark gives, nothing more on stdout")
    func rendersFileFragment() async throws {
        let folder = try TemporaryDirectory("notes-render")
        defer { folder.remove() }
        let file = folder.appending("note.md")
        try Data("# Title\n\nSome *text* and [a link](other.md).\n".utf8).write(to: file)
        let result = try await ProcessRunner.run(BuiltProducts.client, ["render", file.path])
        #expect(result.exitCode == 0)
        #expect(result.stdout == "<h1>Title</h1>\n<p>Some <em>text</em> and <a href=\"other.md\">a link</a>.</p>\n")
        #expect(result.stderr.isEmpty)
    }

    @Test("reads stdin when given - or no file")
    func readsStdin() async throws {
        for arguments in [["render", "-"], ["render"]] {
            let result = try await ProcessRunner.run(BuiltProducts.client, arguments, stdin: "*piped*\n")
            #expect(result.exitCode == 0)
            #expect(result.stdout == "<p><em>piped</em></p>\n")
        }
    }

    @Test("--standalone gives a full page titled by the first heading, else by the file name")
    func standalonePage() async throws {
        let folder = try TemporaryDirectory("notes-render")
        defer { folder.remove() }
        let file = folder.appending("Grocery list.md")
        try Data("- milk\n".utf8).write(to: file)
        let untitled = try await ProcessRunner.run(BuiltProducts.client, ["render", "--standalone", file.path])
        #expect(untitled.exitCode == 0)
        #expect(untitled.stdout.hasPrefix("<!DOCTYPE html>\n<html>\n<head>\n<meta charset=\"utf-8\">\n"))
        #expect(untitled.stdout.contains("<title>Grocery list</title>"))
        #expect(untitled.stdout.contains("<ul>\n<li>milk</li>\n</ul>\n"))
        #expect(untitled.stdout.hasSuffix("</html>\n"))

        let titled = try await ProcessRunner.run(BuiltProducts.client, ["render", "--standalone"], stdin: "## Plans & <ideas>\n")
        #expect(titled.stdout.contains("<title>Plans &amp;</title>"))
    }

    @Test("a note past the rendering bound prints as its escaped text with a notice, with or without --unsafe", .timeLimit(.minutes(1)))
    func hostileNoteIsShownAsText() async throws {
        let hostile = "<script>alert(1)</script>\n" + String(repeating: ">", count: 100_000) + " x\n" + String(repeating: "*", count: 50_000) + "a"
            + String(repeating: "*", count: 50_000) + "\n" + String(repeating: "[", count: 100_000) + "\n" + String(repeating: "- ", count: 50_000) + "x\n"
        for arguments in [["render"], ["render", "--unsafe"], ["render", "--standalone"]] {
            let result = try await ProcessRunner.run(BuiltProducts.client, arguments, stdin: hostile)
            #expect(result.exitCode == 0, "\(arguments)")
            #expect(result.stdout.contains("<p class=\"notes-unrendered\" role=\"note\">This note is shown as plain text"), "\(arguments)")
            #expect(result.stdout.contains("<pre class=\"notes-unrendered-text\">&lt;script&gt;alert(1)&lt;/script&gt;\n&gt;&gt;&gt;"), "\(arguments)")
            #expect(!result.stdout.contains("<script") && !result.stdout.contains("<blockquote>"), "\(arguments)")
        }
    }

    @Test("safe by default: raw HTML and script links never reach stdout; --unsafe is the opt-in")
    func safeByDefault() async throws {
        let hostile = "<script>alert(1)</script>\n\n<img src=x onerror=alert(1)> [x](javascript:alert(1)) [y](JAVASCRIPT:go())\n"
        let safe = try await ProcessRunner.run(BuiltProducts.client, ["render"], stdin: hostile)
        #expect(safe.exitCode == 0)
        #expect(!safe.stdout.contains("<script"))
        #expect(!safe.stdout.contains("onerror"))
        #expect(!safe.stdout.lowercased().contains("javascript:"))
        #expect(safe.stdout.contains("<!-- raw HTML omitted -->"))

        // Raw HTML passes with --unsafe; GFM's tag filter still disarms <script> (and the few
        // other tags GitHub filters) in the default flavour, not in pure CommonMark.
        let unsafe = try await ProcessRunner.run(BuiltProducts.client, ["render", "--unsafe", "--standalone"], stdin: hostile)
        #expect(unsafe.stdout.contains("<img src=x onerror=alert(1)>"))
        #expect(unsafe.stdout.contains("&lt;script>alert(1)&lt;/script>"))
        #expect(!unsafe.stdout.contains("Content-Security-Policy"))
        let pure = try await ProcessRunner.run(BuiltProducts.client, ["render", "--unsafe", "--commonmark"], stdin: hostile)
        #expect(pure.stdout.contains("<script>alert(1)</script>"))
    }

    @Test("a missing file fails with exit 1 and says so; an unknown option is a usage error")
    func errors() async throws {
        let missing = try await ProcessRunner.run(BuiltProducts.client, ["render", "/nonexistent/note.md"])
        #expect(missing.exitCode == 1)
        #expect(missing.stdout.isEmpty)
        #expect(missing.stderr.contains("cannot read /nonexistent/note.md"))

        let usage = try await ProcessRunner.run(BuiltProducts.client, ["render", "--fancy"], stdin: "")
        #expect(usage.exitCode == 2)
        #expect(usage.stderr.contains("unknown option --fancy"))
    }
}
