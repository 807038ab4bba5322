import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// Text from the network reaches the terminal with its control characters made
/// visible (`\u{1b}`), so a hostile server cannot clear the screen, set the window title, write
/// the clipboard (OSC 52) or disguise a name with a bidi override; `--json` keeps it exact.
@Suite("Client: server text is printed safely")
struct ServerTextOutputTests {
    /// What must never reach stdout or stderr raw from server text.
    static let steering: [Unicode.Scalar] = ["\u{1B}", "\u{0}", "\u{7}", "\u{9B}", "\u{202E}", "\u{2066}"]

    static func containsSteering(_ text: String) -> Bool {
        text.unicodeScalars.contains { steering.contains($0) }
    }

    static let hostilePaths = ["clear\u{1B}[2J.md", "nul\u{0}.md", "two\nlines.md", "\u{202E}dm.exe.md",
                               "clip\u{1B}]52;c;ZXZpbA==\u{7}.md", "csi\u{9B}31m.md", "ok 🧑‍💻.md"]

    @Test("ls prints one line per note with control characters visible; --json decodes to the exact paths")
    func listShowsHostilePathsSafely() async throws {
        let notes = Self.hostilePaths.map { HostileServerFixture.note($0, nil) }
        let fixture = try HostileServerFixture { request in
            request.path == "/v1/notes" ? HostileServerFixture.json(NoteListPage(notes: notes, nextCursor: nil))
                : .error(404, "not_found", "No such thing.")
        }
        defer { fixture.stop() }

        for arguments in [["ls"], ["ls", "-l"]] {
            let result = try await fixture.notes(arguments)
            #expect(result.exitCode == 0, "\(result.stderr)")
            #expect(!Self.containsSteering(result.stdout))
            #expect(result.stdout.split(separator: "\n", omittingEmptySubsequences: false).count == notes.count + 1)
            #expect(result.stdout.contains("clear\\u{1b}[2J.md"))
            #expect(result.stdout.contains("two\\u{a}lines.md"))
            #expect(result.stdout.contains("\\u{202e}dm.exe.md"))
            #expect(result.stdout.contains("ok 🧑‍💻.md"))  // the zero-width joiner of an emoji is kept
        }
        let json = try await fixture.notes(["ls", "--json"])
        #expect(json.exitCode == 0)
        let decoded = try WireJSON.decoder().decode(ListCommand.Output.self, from: Data(json.stdout.utf8))
        #expect(decoded.notes.map(\.path) == Self.hostilePaths)
    }

    @Test("search prints snippets with OSC 52, screen clears and window titles made visible; --json is exact")
    func searchShowsHostileSnippetsSafely() async throws {
        let snippets = ["copy \u{1B}]52;c;cm0gLXJmIH4=\u{7} this", "\u{1B}[2J\u{1B}[H wiped", "\u{1B}]0;pwned\u{1B}\\ title"]
        let results = SearchResults(results: snippets.enumerated().map { index, snippet in
            SearchResults.Hit(id: NoteID(), path: index == 0 ? "a\u{1B}[31m.md" : "n\(index).md", snippet: snippet, rev: 1)
        })
        let fixture = try HostileServerFixture { request in
            request.path == "/v1/search" ? HostileServerFixture.json(results) : .error(404, "not_found", "No such thing.")
        }
        defer { fixture.stop() }

        let result = try await fixture.notes(["search", "anything"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(!Self.containsSteering(result.stdout))
        #expect(result.stdout.contains("a\\u{1b}[31m.md: copy \\u{1b}]52;c;cm0gLXJmIH4=\\u{7} this"))
        #expect(result.stdout.split(separator: "\n").count == snippets.count)
        let json = try await fixture.notes(["search", "anything", "--json"])
        #expect(try WireJSON.decoder().decode(SearchResults.self, from: Data(json.stdout.utf8)) == results)
    }

    @Test("a server's error message and a token list are shown with control characters visible")
    func errorsAndTokenListsAreSafe() async throws {
        let token = PersonalTokenResource(id: "t1", name: "ci\u{1B}]0;owned\u{7}", scope: .read,
                                          createdAt: "2026-01-01T00:00:00.000Z", expiresAt: nil, lastUsedAt: "\u{1B}[2J", token: nil)
        let fixture = try HostileServerFixture { request in
            switch request.path {
            case "/v1/tokens": HostileServerFixture.json(PersonalTokenList(tokens: [token]))
            default: .json(400, #"{"error":{"code":"bad\u001b[2J","message":"Bad \u001b]52;c;ZXZpbA==\u0007 request."}}"#)
            }
        }
        defer { fixture.stop() }

        let failed = try await fixture.notes(["ls"])
        #expect(failed.exitCode == 1)
        #expect(failed.stderr.contains("Bad \\u{1b}]52;c;ZXZpbA==\\u{7} request"), "\(failed.stderr)")
        #expect(!Self.containsSteering(failed.stderr))
        let list = try await fixture.notes(["token", "list"])
        #expect(list.exitCode == 0, "\(list.stderr)")
        #expect(list.stdout.contains("ci\\u{1b}]0;owned\\u{7}"))
        #expect(!Self.containsSteering(list.stdout))
    }

    @Test("whoami shows a user name from the server with its control characters visible")
    func whoamiShowsHostileUsernameSafely() async throws {
        let user = UserResource(id: 7, username: "ada\u{1B}]0;owned\u{7}\u{1B}[2J", createdAt: "2026-01-01T00:00:00.000Z")
        let fixture = try HostileServerFixture { request in
            request.path == "/v1/me" ? HostileServerFixture.json(user) : .error(404, "not_found", "No such thing.")
        }
        defer { fixture.stop() }
        let result = try await fixture.notes(["whoami"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(!Self.containsSteering(result.stdout), "\(result.stdout.debugDescription)")
        #expect(result.stdout.contains("ada\\u{1b}]0;owned\\u{7}\\u{1b}[2J on "))
    }

    @Test("cat into a pipe prints a note's exact bytes, escape sequences included")
    func catIntoAPipeIsExact() async throws {
        let content = "# Colours\n\u{1B}[31mred\u{1B}[0m\r\n\ttabbed\n"
        let fixture = try Self.serving(HostileServerFixture.note("c.md", content))
        defer { fixture.stop() }
        let result = try await fixture.notes(["cat", "c.md"])
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(result.stdout == content)
    }

    @Test("cat on a terminal shows escape sequences in a note as text, keeping tabs and line breaks",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script"), "needs util-linux `script` for a pty"))
    func catOnATerminalIsSafe() async throws {
        let content = "# Colours\n\u{1B}[31mred\u{1B}[0m\ttabbed\n\u{1B}]52;c;ZXZpbA==\u{7}\n"
        let fixture = try Self.serving(HostileServerFixture.note("c.md", content))
        defer { fixture.stop() }
        // `script` runs the command on a pseudo-terminal and copies what it printed.
        let result = try await fixture.notes(["-qec", "'\(BuiltProducts.client.path)' cat c.md", "/dev/null"], executable: "/usr/bin/script")
        #expect(result.exitCode == 0, "\(result.stderr)")
        #expect(!Self.containsSteering(result.stdout), "\(result.stdout.debugDescription)")
        #expect(result.stdout.contains("\\u{1b}[31mred\\u{1b}[0m\ttabbed"))
        #expect(result.stdout.contains("\\u{1b}]52;c;ZXZpbA==\\u{7}"))
    }

    /// A server holding `note` alone, found by path and fetched as `notes cat` does.
    static func serving(_ note: NoteResource) throws -> HostileServerFixture {
        try HostileServerFixture { request in
            switch request.path {
            case "/v1/notes": HostileServerFixture.json(NoteListPage(notes: [note], nextCursor: nil))
            case "/v1/notes/\(note.id.value)": Self.noteAnswer(note, request)
            default: .error(404, "not_found", "No such thing.")
            }
        }
    }

    /// `GET /v1/notes/{id}` as the real server answers it: raw bytes for `Accept: text/markdown`.
    static func noteAnswer(_ note: NoteResource, _ request: ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Reply {
        guard request.headers["accept"]?.hasPrefix("text/markdown") == true else { return HostileServerFixture.json(note) }
        return .respond(status: 200, headers: ["Content-Type": "text/markdown; charset=utf-8"], body: Data((note.content ?? "").utf8))
    }

    @Test("printable escapes controls, bidi overrides and separators, and keeps layout only when asked")
    func printableForms() {
        #expect(Terminal.printable("a\u{1B}[2Jb") == "a\\u{1b}[2Jb")
        #expect(Terminal.printable("x\u{0}y\u{7F}z\u{85}") == "x\\u{0}y\\u{7f}z\\u{85}")
        #expect(Terminal.printable("\u{202E}abc\u{2069}\u{2028}") == "\\u{202e}abc\\u{2069}\\u{2028}")
        #expect(Terminal.printable("line\r\nnext\ttab") == "line\\u{d}\\u{a}next\\u{9}tab")
        #expect(Terminal.printable("line\r\nnext\ttab\rover", keepingLayout: true) == "line\r\nnext\ttab\\u{d}over")
        #expect(Terminal.printable("café 🧑‍💻 \u{200C}") == "café 🧑‍💻 \u{200C}")
    }
}
