import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// Attachments end to end: the real `notes-server` and `notes` binaries, real folders.
@Suite("Sync attachments end to end")
struct SyncAttachmentTests {
    static func bytes(_ count: Int, seed: UInt64) -> Data {
        var random = SeededRandom(seed: seed)
        return Data((0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) })
    }

    @Test("an image added in one folder arrives byte-exact in another, and in both exports the page's <img> resolves to it")
    func imageArrivesByteExactAndInExports() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            let image = Self.bytes(150_000, seed: 11)
            try h.write("a", "img/arch diagram.png", image)
            try h.write("a", "design.md", "# Design\n\n![the architecture](img/arch%20diagram.png)\n")

            let up = try await h.sync("a")
            #expect(up.uploaded == 2, "\(up)")
            #expect(try await h.serverAttachments()["img/arch diagram.png"]?.size == image.count)

            try await h.initFolder("b")
            let down = try await h.sync("b")
            #expect(down.downloaded == 2, "\(down)")
            #expect(FileManager.default.contents(atPath: h.folder("b") + "/img/arch diagram.png") == image)
            #expect(try h.tree("b") == h.tree("a"))
            #expect(try FileManager.default.contentsOfDirectory(atPath: h.folder("b") + "/.notes/tmp").isEmpty)

            for (name, source) in [("from-folder", [h.folder("b")]), ("from-server", ["--remote"])] {
                let site = h.work.appending(name)
                let export = try await h.notes(["export", "--html", site.path] + source)
                #expect(export.exitCode == 0, "\(name): \(export.stderr)")
                let page = ExportFixture.text("design.html", in: site)
                #expect(page.contains(#"<img src="img/arch%20diagram.png""#), "\(name): \(page)")
                #expect(FileManager.default.contents(atPath: site.path + "/img/arch diagram.png") == image, "\(name)")
            }
        }
    }

    @Test("renaming and copying an image costs no content transfer: the server is asked, and holds it already")
    func renameAndCopyMoveNoBytes() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            let image = Self.bytes(40_000, seed: 12)
            try h.write("a", "photo.jpg", image)
            try await h.sync("a")
            let id = try #require(try await h.serverAttachments()["photo.jpg"]?.id)
            // A content smaller than a chunk goes whole, in one request: no upload opened, no chunk.
            #expect(try await waitUntil { h.logCount("PUT /v1/content/") == 1 }, "one content sent whole")
            #expect(h.logCount("POST /v1/uploads ") == 0 && h.logCount("PUT /v1/uploads/") == 0)

            try h.move("a", "photo.jpg", "trips/2026/photo.jpg")
            try h.write("a", "copy-of-photo.jpg", image)
            let report = try await h.sync("a")
            #expect(report.renamed == 1 && report.uploaded == 1, "\(report)")
            let server = try await h.serverAttachments()
            #expect(server["trips/2026/photo.jpg"]?.id == id, "a rename keeps the id (and its history)")
            #expect(server["copy-of-photo.jpg"]?.hash == SHA256.hex(of: image))
            #expect(try await waitUntil { h.logCount("POST /v1/content/missing") == 2 })
            #expect(h.logCount("PUT /v1/content/") == 1, "the content was sent once, ever")
            #expect(h.logCount("POST /v1/uploads ") == 0 && h.logCount("PUT /v1/uploads/") == 0)
        }
    }

    @Test("against a server from before the one-request upload (PUT /v1/content answered 404), a small image goes through the chunked upload")
    func smallContentFallsBackToChunksOnAnOlderServer() async throws {
        try await LiveServer.with(account: .loggedIn) { direct in
            let older = try HoldingProxy(upstreamPort: direct.server.port, answering: { request in
                request.method == "PUT" && request.path.hasPrefix("/v1/content/") ? .error(404, "not_found", "No such route.") : nil
            })
            defer { older.stop() }
            var h = direct
            h.via = older.baseURL
            try await h.login()
            try await h.initFolder("a")
            let image = Self.bytes(40_000, seed: 33)
            try h.write("a", "photo.jpg", image)
            #expect(try await h.sync("a").uploaded == 1)
            #expect(try await h.serverAttachments()["photo.jpg"]?.hash == SHA256.hex(of: image))
            #expect(try await waitUntil { h.logCount("POST /v1/uploads ") == 1 }, "the chunked upload was used")
            #expect(h.logCount("PUT /v1/content/") == 0, "the refused request never reached the server")
        }
    }

    @Test("concurrent binary edits: the server's version at the path, the local one as NAME.conflict-DEVICE-TIME.EXT, exit 3")
    func concurrentEditsMakeAConflictCopy() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try await h.initFolder("b")
            try h.write("a", "doc.pdf", Self.bytes(10_000, seed: 13))
            try await h.sync("a")
            try await h.sync("b")
            let fromA = Self.bytes(12_000, seed: 14), fromB = Self.bytes(9_000, seed: 15)
            try h.write("a", "doc.pdf", fromA)
            try h.write("b", "doc.pdf", fromB)
            try await h.sync("a")

            let report = try await h.sync("b", expect: 3)
            let conflict = try #require(report.conflicts.first)
            #expect(conflict.path == "doc.pdf")
            #expect(conflict.copy.hasPrefix("doc.conflict-b-") && conflict.copy.hasSuffix(".pdf"), "\(conflict.copy)")
            #expect(FileManager.default.contents(atPath: h.folder("b") + "/doc.pdf") == fromA)
            #expect(FileManager.default.contents(atPath: h.folder("b") + "/" + conflict.copy) == fromB)

            // Nothing lost: the copy syncs like any attachment, and both folders converge.
            try await h.sync("b")
            try await h.sync("a")
            #expect(FileManager.default.contents(atPath: h.folder("a") + "/" + conflict.copy) == fromB)
            #expect(try h.tree("a") == h.tree("b"))
            let listed = try await h.notes(["conflicts", h.folder("b")])
            #expect(listed.stdout.contains(conflict.copy), "notes conflicts lists attachment copies: \(listed.stdout)")
        }
    }

    @Test("an edit beats a delete, whichever side syncs first")
    func editBeatsDelete() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try await h.initFolder("b")
            try h.write("a", "x.bin", Self.bytes(5000, seed: 16))
            try h.write("a", "y.bin", Self.bytes(5000, seed: 17))
            try await h.sync("a")
            try await h.sync("b")
            let editX = Self.bytes(6000, seed: 18), editY = Self.bytes(7000, seed: 19)

            // x: deleted in a (synced first), edited in b.
            try h.remove("a", "x.bin")
            try h.write("b", "x.bin", editX)
            // y: edited in a (synced first), deleted in b.
            try h.write("a", "y.bin", editY)
            try h.remove("b", "y.bin")
            try await h.sync("a")
            try await h.sync("b")
            try await h.sync("a")

            for name in ["a", "b"] {
                #expect(FileManager.default.contents(atPath: h.folder(name) + "/x.bin") == editX, "\(name)")
                #expect(FileManager.default.contents(atPath: h.folder(name) + "/y.bin") == editY, "\(name)")
            }
            let server = try await h.serverAttachments()
            #expect(server["x.bin"]?.hash == SHA256.hex(of: editX) && server["y.bin"]?.hash == SHA256.hex(of: editY))
        }
    }

    @Test("a file over the server's attachment limit is skipped with its name and the limit; the rest syncs; exit 1")
    func fileOverTheLimitIsSkippedAndNamed() async throws {
        try await LiveServer.with(["--max-attachment-size", "4K"], account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", "small.png", Self.bytes(1000, seed: 20))
            try h.write("a", "huge.mov", Self.bytes(5000, seed: 21))
            try h.write("a", "note.md", "text\n")

            let result = try await h.notes(["sync", h.folder("a")])
            #expect(result.exitCode == 1, "\(result.stderr)")
            #expect(result.stderr.contains("huge.mov") && result.stderr.contains("4096"), "\(result.stderr)")
            let report = try await h.sync("a", expect: 1)
            #expect(report.skipped.map(\.path) == ["huge.mov"] && report.skipped.first?.reason == .tooLarge, "\(report.skipped)")
            #expect(Set(try await h.serverAttachments().keys) == ["small.png"])
            #expect(try await h.serverNotes() == ["note.md": "text\n"])
        }
    }

    @Test("an upload past the account's quota is answered 507: skipped and named, nothing of it stored, the rest syncs", .directoryStoreOnly)
    func quotaExceededIsReportedAndNothingHalfStored() async throws {
        try await LiveServer.with(["--quota", "40K"], account: .loggedIn) { h in
            try await h.initFolder("a")
            let fits = Self.bytes(30_000, seed: 22), over = Self.bytes(30_000, seed: 23)
            try h.write("a", "a-fits.bin", fits)
            try await h.sync("a")
            try h.write("a", "b-over.bin", over)
            try h.write("a", "note.md", "still syncs\n")

            let report = try await h.sync("a", expect: 1)
            #expect(report.skipped.map(\.path) == ["b-over.bin"] && report.skipped.first?.reason == .quotaExceeded, "\(report.skipped)")
            #expect(report.warnings.contains { $0.contains("b-over.bin") && $0.contains("quota") }, "\(report.warnings)")
            #expect(Set(try await h.serverAttachments().keys) == ["a-fits.bin"])
            #expect(try await h.serverNotes() == ["note.md": "still syncs\n"])
            let stored = Self.contentFiles(h)
            #expect(!stored.contains { $0.contains(SHA256.hex(of: over)) }, "no chunk, no content of the refused upload: \(stored)")
            #expect(stored.contains { $0.hasSuffix(SHA256.hex(of: fits)) })
        }
    }

    @Test("notes cat streams an attachment's exact bytes (and an old revision's), ls -l and --json give the kind, log and restore work")
    func commandsHandleAttachments() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            let first = Self.bytes(70_000, seed: 24), second = Self.bytes(50_000, seed: 25)
            try h.write("a", "scan.pdf", first)
            try h.write("a", "readme.md", "hi\n")
            try await h.sync("a")
            try h.write("a", "scan.pdf", second)
            try await h.sync("a")

            let cat = try await Self.catToFile(h, ["cat", "scan.pdf"])
            #expect(cat.result.exitCode == 0, "\(cat.result.stderr)")
            #expect(cat.bytes == second)

            let ls = try await h.notes(["ls", "-l"])
            let lines = ls.stdout.split(separator: "\n").map { $0.split(separator: "\t").map(String.init) }
            #expect(lines.map { [$0[1], $0[3], $0[4]] } == [["3", "readme.md", "note"], ["\(second.count)", "scan.pdf", "attachment"]],
                    "\(ls.stdout)")
            let json = try await h.notes(["ls", "--json"])
            let listed = try WireJSON.decoder().decode(ListCommand.Output.self, from: Data(json.stdout.utf8))
            #expect(listed.notes.first { $0.path == "scan.pdf" }?.mediaType == "application/pdf")

            let inFolder = URL(fileURLWithPath: h.folder("a"))
            let log = try await ProcessRunner.run(BuiltProducts.client, ["log", "scan.pdf", "--json"], environment: h.environment,
                                                  currentDirectory: inFolder)
            #expect(log.exitCode == 0, "\(log.stderr)")
            let revisions = try #require(try JSONSerialization.jsonObject(with: Data(log.stdout.utf8)) as? [String: Any])
            let entries = try #require(revisions.values.first { $0 is [Any] } as? [[String: Any]])
            #expect(entries.count == 2, "\(log.stdout)")
            let oldRev = try #require(entries.compactMap { $0["rev"] as? Int }.min())

            let old = try await Self.catToFile(h, ["cat", "scan.pdf", "--rev", String(oldRev)])
            #expect(old.result.exitCode == 0 && old.bytes == first, "\(old.result.stderr)")
            let restore = try await ProcessRunner.run(BuiltProducts.client, ["restore", "scan.pdf", "--rev", String(oldRev)],
                                                      environment: h.environment, currentDirectory: inFolder)
            #expect(restore.exitCode == 0, "\(restore.stderr)")
            try await h.sync("a")
            #expect(FileManager.default.contents(atPath: h.folder("a") + "/scan.pdf") == first)
        }
    }

    @Test("two watchers carry attachments both ways: a new image, an edit and a rename arrive without a manual sync")
    func watchersCarryAttachments() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try await h.initFolder("b")
            let watchers = try ["a", "b"].map { try WatchingSync(folder: h.folder($0), environment: h.environment) }
            defer { for watcher in watchers { watcher.send(SIGKILL) } }
            for watcher in watchers { try #require(try await watcher.waitUntilWatching(), "\(watcher.stderr)") }
            func arrives(_ name: String, _ path: String, _ bytes: Data) async throws -> Bool {
                try await waitUntil(timeout: 60, every: .milliseconds(100)) {
                    FileManager.default.contents(atPath: h.folder(name) + "/" + path) == bytes
                }
            }
            let image = Self.bytes(20_000, seed: 26), edited = Self.bytes(21_000, seed: 27)
            try h.write("a", "pics/cat.gif", image)
            #expect(try await arrives("b", "pics/cat.gif", image), "a's new image did not reach b: \(watchers[0].stderr)")
            try h.write("b", "pics/cat.gif", edited)
            #expect(try await arrives("a", "pics/cat.gif", edited), "b's edit did not reach a: \(watchers[1].stderr)")
            try h.move("a", "pics/cat.gif", "cat.gif")
            #expect(try await arrives("b", "cat.gif", edited))
            #expect(try await waitUntil(timeout: 60) { !FileManager.default.fileExists(atPath: h.folder("b") + "/pics/cat.gif") })
            for watcher in watchers { #expect(await watcher.stop() == 0) }
        }
    }

    @Test("notes status predicts an attachment sync exactly: uploads, renames, downloads, and the conflict copy")
    func statusPredictsAttachmentSync() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try await h.initFolder("b")
            try h.write("a", "keep.png", Self.bytes(3000, seed: 28))
            try h.write("a", "clash.png", Self.bytes(3000, seed: 29))
            try await h.sync("a")
            try await h.sync("b")
            try h.write("a", "new.webp", Self.bytes(4000, seed: 30))
            try h.move("a", "keep.png", "moved/keep.png")
            try h.write("a", "clash.png", Self.bytes(3100, seed: 31))
            try await h.sync("a")
            try h.write("b", "clash.png", Self.bytes(3200, seed: 32))
            try h.write("b", "mine.svg", Data("<svg/>".utf8))

            let status = try await h.notes(["status", h.folder("b"), "--json"])
            let predicted = try WireJSON.decoder().decode(SyncReport.self, from: Data(status.stdout.utf8))
            let done = try await h.sync("b", expect: 3)
            // Uploads go in id order, and ids are drawn afresh by each run: compared by path.
            func sorted(_ report: SyncReport) -> [String] {
                report.changes.map { "\($0.action.rawValue) \(ConflictName.isConflictCopy($0.path) ? "conflict copy" : $0.path)" }.sorted()
            }
            #expect(sorted(predicted) == sorted(done), "predicted \(predicted.changes), did \(done.changes)")
            #expect(sorted(done) == ["downloaded clash.png", "downloaded new.webp", "renamed moved/keep.png",
                                     "uploaded conflict copy", "uploaded mine.svg"])
            #expect(predicted.conflicts.map(\.path) == ["clash.png"] && done.conflicts.map(\.path) == ["clash.png"])
        }
    }

    /// `notes ARGS > FILE` through a shell (stdout holds binary bytes), run in folder `a`, and the file's bytes.
    static func catToFile(_ h: LiveServer, _ arguments: [String]) async throws -> (result: ProcessResult, bytes: Data?) {
        let output = h.work.appending("cat-\(UUID().uuidString)").path
        let quoted = ([BuiltProducts.client.path] + arguments).map { "'" + $0.replacingOccurrences(of: "'", with: "'\\''") + "'" }
        let result = try await ProcessRunner.run(URL(fileURLWithPath: "/bin/sh"), ["-c", "exec " + quoted.joined(separator: " ") + " > '\(output)'"],
                                                 environment: h.environment, currentDirectory: URL(fileURLWithPath: h.folder("a")))
        return (result, FileManager.default.contents(atPath: output))
    }

    /// Every file in the server's content directory (`<db>.content`), relative paths.
    static func contentFiles(_ h: LiveServer) -> [String] {
        let root = (h.server.sqlitePath ?? "") + ".content"
        guard let walk = FileManager.default.enumerator(atPath: root) else { return [] }
        var files: [String] = []
        while let path = walk.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + path, isDirectory: &isFolder), !isFolder.boolValue { files.append(path) }
        }
        return files
    }
}
