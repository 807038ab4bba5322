import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// `notes export --remote`: the real binary exporting what the real server holds.
@Suite("Export from the server")
struct ExportRemoteTests {
    static let notes: [(path: String, content: String)] = [
        ("index.md", "# Home\n\nStart at [the plan](work/plan.md).\n"),
        ("work/plan.md", "# The plan\n\nBack [home](../index.md), see [one idea](ideas/one.md) and [nothing](missing.md).\n"),
        ("work/ideas/one.md", "# One idea\r\n\r\nUp to [the plan](../plan.md#steps).\r\n"),
        ("Café/crème brûlée.md", "Sugar, no title, no newline"),
    ]

    /// Deletes the note at `path` through the API (`If-Match` its current revision).
    static func delete(_ path: String, _ harness: LiveServer) async throws {
        let client = try harness.apiClient()
        let note = try #require(try await client.note(atPath: NotePath(path)))
        var request = APIRequest("DELETE", "/v1/notes/\(note.id.value)")
        request.headers["If-Match"] = "\"\(note.rev)\""
        _ = try await client.send(request)
    }

    @Test("export --remote writes a page per live note, the index and rewritten links, and leaves deleted notes out")
    func exportsLiveNotesWithLinks() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            try await harness.createNotes(Self.notes + [("gone.md", "# Gone\n")])
            try await Self.delete("gone.md", harness)
            let output = harness.home.appending("site")

            let result = try await harness.notes(["export", "--html", output.path, "--remote"])
            #expect(result.exitCode == 0, "\(result.stderr)")
            #expect(result.stderr.contains("notes export: work/plan.md links to 'missing.md', but there is no note work/missing.md"))
            #expect(result.stderr.contains("Exported 4 note(s) to \(output.path): 5 written, 0 unchanged, 0 removed."))
            let files = try ExportFixture.tree(output)
            #expect(files.keys.sorted() == [".notes-export.json", "Café/crème brûlée.html", "index.html", "style.css",
                                            "work/ideas/one.html", "work/plan.html"])
            let index = ExportFixture.text("index.html", in: output)
            #expect(index.contains("Start at <a href=\"work/plan.html\">the plan</a>"))
            #expect(index.contains("<a href=\"work/ideas/one.html\">One idea</a>"))
            #expect(index.contains("<a href=\"Caf%C3%A9/cr%C3%A8me%20br%C3%BBl%C3%A9e.html\">crème brûlée</a>"))
            #expect(!index.contains("gone"))
            let plan = ExportFixture.text("work/plan.html", in: output)
            #expect(plan.contains("<a href=\"../index.html\">home</a>"))
            #expect(plan.contains("<a href=\"ideas/one.html\">one idea</a>"))
            #expect(plan.contains("<a href=\"missing.md\">nothing</a>"))
            #expect(ExportFixture.text("work/ideas/one.html", in: output).contains("<a href=\"../plan.html#steps\">the plan</a>"))

            // Once the server's notes change, a second export follows: the deleted note's page goes.
            try await Self.delete("work/ideas/one.md", harness)
            let again = try await harness.notes(["export", "--html", output.path, "--remote", "--server", harness.serverURL])
            #expect(again.exitCode == 0, "\(again.stderr)")
            #expect(again.stderr.contains("Exported 3 note(s)"))
            #expect(!FileManager.default.fileExists(atPath: output.appendingPathComponent("work/ideas/one.html").path))
        }
    }

    @Test("a remote export and a local export of the same notes are byte-identical sites, manifest included")
    func remoteAndLocalExportsAreIdentical() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            try await harness.createNotes(Self.notes)
            let folder = harness.home.appending("notes")
            try ExportFixture.write(Self.notes.map { ($0.path, $0.content) }, in: folder)
            let remoteSite = harness.home.appending("remote-site"), localSite = harness.home.appending("local-site")

            let remote = try await harness.notes(["export", "--html", remoteSite.path, "--remote", "--title", "Mine"])
            let local = try await harness.notes(["export", "--html", localSite.path, folder.path, "--title", "Mine"])
            #expect(remote.exitCode == 0, "\(remote.stderr)")
            #expect(local.exitCode == 0, "\(local.stderr)")
            let remoteFiles = try ExportFixture.tree(remoteSite)
            #expect(remoteFiles.count == Self.notes.count - 1 + 3)  // index.md is the index page
            #expect(remoteFiles == (try ExportFixture.tree(localSite)))
        }
    }

    @Test("the source reads the changes feed page by page until has_more is false")
    func readsEveryPageOfTheFeed() async throws {
        try await LiveServer.with(account: .added) { harness in
            try await harness.login()
            let many = (0..<7).map { (path: "n/\($0).md", content: "note \($0)\n") }
            try await harness.createNotes(many)
            try await Self.delete("n/3.md", harness)
            let before = harness.logCount("GET /v1/changes 200")

            let exported = try await RemoteSource(client: try harness.apiClient(), pageSize: 2).notes()
            #expect(exported.notes.map(\.path.value) == ["n/0.md", "n/1.md", "n/2.md", "n/4.md", "n/5.md", "n/6.md"])
            #expect(exported.notes.map { String(decoding: $0.content, as: UTF8.self) } == ["note 0\n", "note 1\n", "note 2\n", "note 4\n", "note 5\n", "note 6\n"])
            #expect(exported.skipped.isEmpty)
            // 7 notes (the tombstone included) in pages of 2: 4 requests.
            #expect(try await waitUntil { harness.logCount("GET /v1/changes 200") == before + 4 })
        }
    }

    @Test("DIR with --remote, or --server without it, is a usage error; --remote when signed out exits 4")
    func usageErrors() async throws {
        let home = try TemporaryDirectory("notes-home")
        defer { home.remove() }
        let environment = ["HOME": home.path]
        let output = home.appending("site").path
        let both = try await ProcessRunner.run(BuiltProducts.client, ["export", "--html", output, home.path, "--remote"], environment: environment)
        #expect(both.exitCode == 2)
        #expect(both.stderr.contains("not both"))
        let serverAlone = try await ProcessRunner.run(BuiltProducts.client, ["export", "--html", output, "--server", "http://127.0.0.1:9"],
                                                      environment: environment)
        #expect(serverAlone.exitCode == 2)
        #expect(serverAlone.stderr.contains("--server goes with --remote"))
        let signedOut = try await ProcessRunner.run(BuiltProducts.client, ["export", "--html", output, "--remote"], environment: environment)
        #expect(signedOut.exitCode == 4)
        #expect(!FileManager.default.fileExists(atPath: output))
    }

    @Test("a hostile server's paths that would climb out of OUTDIR are refused and reported, and nothing is written outside it")
    func hostilePathsAreRefused() async throws {
        let work = try TemporaryDirectory("notes-export-hostile")
        defer { work.remove() }
        let paths = ["../escape.md", "/tmp/absolute-\(UUID().uuidString).md", "ok/../../climb.md", "a\u{1B}[2J.md", "fine.md", "fine.md"]
        let changes = paths.enumerated().map { index, path in
            NoteResource(id: NoteID(), path: path, content: "# \(index)\n", hash: SHA256.hex(of: "# \(index)\n"), rev: Int64(index + 1), size: 4,
                         createdAt: "2026-01-01T00:00:00.000Z", updatedAt: "2026-01-01T00:00:00.000Z", deleted: false)
        }
        let feed = String(decoding: try WireJSON.encoder().encode(ChangesPage(changes: changes, cursor: "6", hasMore: false)), as: UTF8.self)
        let server = try ScriptedHTTPServer { request in
            request.path == "/v1/changes" ? .json(200, feed) : .error(404, "not_found", "No such thing.")
        }
        defer { server.stop() }
        let output = work.appending("out/site")
        let environment = ["HOME": work.path, "NOTES_TOKEN": "npt_scripted", "NOTES_SERVER": server.baseURL]

        let result = try await ProcessRunner.run(BuiltProducts.client, ["export", "--html", output.path, "--remote"], environment: environment)
        #expect(result.exitCode == 0, "\(result.stderr)")
        for refused in ["../escape.md", "ok/../../climb.md", "a\\u{1b}[2J.md"] {
            #expect(result.stderr.contains("notes export: skipped \(refused): the server sent a path that is not a valid note path"))
        }
        #expect(result.stderr.contains("/tmp/absolute-"))
        #expect(!result.stderr.contains("\u{1B}"))
        #expect(result.stderr.contains("skipped fine.md: the server sent two notes with this path; kept the first"))
        #expect(ExportFixture.text("fine.html", in: output).contains("<h1 id=\"4\">4</h1>"))
        // Everything under the work folder is the site: nothing landed beside or above it.
        let written = try ExportFixture.tree(work.url).keys.sorted()
        #expect(written == ["out/site/.notes-export.json", "out/site/fine.html", "out/site/index.html", "out/site/style.css"])
        #expect(server.requests.map(\.path) == ["/v1/changes"])
        #expect(server.requests.first?.query == "limit=500&kinds=note%2Cattachment&since=0&include=content")
        #expect(server.requests.first?.headers["authorization"] == "Bearer npt_scripted")
    }
}
