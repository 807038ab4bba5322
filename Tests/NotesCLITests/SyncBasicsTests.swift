import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// Binding, round trips of a real folder's contents, and cheap no-op syncs.
@Suite("Sync basics end to end")
struct SyncBasicsTests {
    @Test("init + sync uploads a real folder and clone reproduces it byte for byte")
    func roundTripOfARealFolder() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            let big = String(repeating: "A line of a long note, with some words in it.\n", count: 80_000)  // ~3.7 MB
            let files: [(String, String)] = [
                ("top.md", "# Top\n"),
                ("deep/er/still/nested.md", "nested\n"),
                ("crlf.md", "one\r\ntwo\r\nno final newline"),
                ("empty.md", ""),
                ("Straße/Ünïcödé 🙂.md", "unicode name\n"),
                ("big.md", big),
            ]
            for (path, text) in files { try h.write("a", path, text) }
            try h.write("a", "image.png", Data([0x89, 0x50, 0x4E, 0x47]))
            try h.write("a", "latin1.md", Data([0x63, 0x61, 0x66, 0xE9, 0x0A]))  // "café" in Latin-1: not UTF-8
            try h.write("a", ".hidden.md", "never synced\n")

            let report = try await h.sync("a")
            #expect(report.uploaded == files.count + 1, "the image syncs too, as an attachment")
            #expect(report.warnings.contains { $0.contains("latin1.md") && $0.contains("UTF-8") })
            #expect(report.skipped.map(\.path) == ["latin1.md"], "named, with why: \(report.skipped)")
            let server = try await h.serverNotes()
            #expect(Set(server.keys) == Set(files.map(\.0)))
            #expect(try await h.serverAttachments()["image.png"]?.hash == SHA256.hex(of: [0x89, 0x50, 0x4E, 0x47] as [UInt8]))
            #expect(server["crlf.md"] == "one\r\ntwo\r\nno final newline")

            let clone = try await h.notes(["clone", h.serverURL, h.folder("b"), "--device", "b"])
            #expect(clone.exitCode == 0, "\(clone.stderr)")
            let original = try h.tree("a").filter { (files.map(\.0) + ["image.png"]).contains($0.key) }
            #expect(try h.tree("b") == original)
            // What is not a note stays where it was, untouched.
            #expect(FileManager.default.contents(atPath: h.folder("a") + "/latin1.md") == Data([0x63, 0x61, 0x66, 0xE9, 0x0A]))
        }
    }

    @Test("a decomposed (macOS NFD) file name syncs as NFC and does not churn")
    func nfdNamesDoNotChurn() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            let nfd = "Cafe\u{0301} notes.md"
            try h.write("a", nfd, "v1\n")
            try await h.sync("a")
            #expect(try await h.serverNotes() == ["Café notes.md": "v1\n"])
            #expect(try await h.sync("a").isNoOp)
            #expect(try await h.sync("a").isNoOp)
            // A change from elsewhere lands in the same file, under its decomposed name.
            try await h.initFolder("b")
            try await h.sync("b")
            try h.write("b", "Café notes.md", "v2\n")
            try await h.sync("b")
            try await h.sync("a")
            #expect(try FileManager.default.contentsOfDirectory(atPath: h.folder("a")).filter { !$0.hasPrefix(".") } == [nfd])
            #expect(h.read("a", nfd) == "v2\n")
            #expect(try await h.sync("a").isNoOp)
        }
    }

    @Test("a no-op sync makes one changes request and reads no file")
    func noOpSyncIsCheap() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            for i in 0..<30 { try h.write("a", "f\(i % 3)/n\(i).md", "note \(i)\n") }
            let before = h.logCount("GET /v1/changes")
            let upload = try await h.sync("a")
            let catchUp = try await h.sync("a")  // catches up on its own revisions
            let report = try await h.sync("a")
            #expect(report.isNoOp)
            #expect(report.changesRequests == 1)
            #expect(report.filesRead == 0)
            // The server logs a request after answering it: counted against what the three syncs
            // say they asked, not against a count read while the last line may be on its way.
            let asked = upload.changesRequests + catchUp.changesRequests + report.changesRequests
            #expect(try await waitUntil { h.logCount("GET /v1/changes") == before + asked })
            #expect(h.logCount("POST /v1/batch") == 1)  // the first upload only
        }
    }

    @Test("a touched but unchanged file is read once, then recognised by metadata again")
    func touchedFileIsHashedOnce() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", "n.md", "same\n")
            try await h.sync("a")
            try h.write("a", "n.md", "same\n")  // rewritten: new mtime, same bytes
            let report = try await h.sync("a")
            #expect(report.uploaded == 0)
            #expect(report.filesRead == 1)
            #expect(try await h.sync("a").filesRead == 0)
        }
    }

    @Test("sync finds the enclosing bound folder from a subfolder; init refuses a nested binding")
    func findsTheBoundFolderLikeGit() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", "sub/deeper/n.md", "x\n")
            let result = try await h.notes(["sync", h.folder("a") + "/sub/deeper"])
            #expect(result.exitCode == 0, "\(result.stderr)")
            #expect(try await h.serverNotes() == ["sub/deeper/n.md": "x\n"])
            let nested = try await h.notes(["init", h.folder("a") + "/sub", "--server", h.serverURL])
            #expect(nested.exitCode == 2)
            let unbound = try await h.notes(["sync", h.work.path])
            #expect(unbound.exitCode == 2)
            #expect(unbound.stderr.contains("not a notes folder"))
            let status = try await h.notes(["status", h.folder("a")])
            #expect(status.exitCode == 0)
            #expect(status.stdout.contains("Nothing to sync"))
        }
    }

    @Test("a misspelt folder inside a bound one is an error naming it, not a sync (or watch) of the folder above")
    func misspeltFolderIsNotTheBoundFolderAbove() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", "journal/n.md", "x\n")
            let typo = h.folder("a") + "/jounral"
            for arguments in [["sync", typo], ["sync", "--watch", typo], ["status", typo], ["conflicts", typo]] {
                let result = try await h.notes(arguments)
                #expect(result.exitCode == 2, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("no such folder: \(typo)"), "\(arguments): \(result.stderr)")
            }
            let file = try await h.notes(["sync", h.folder("a") + "/journal/n.md"])
            #expect(file.exitCode == 2)
            #expect(file.stderr.contains("not a folder"))
            #expect(try await h.serverNotes().isEmpty, "nothing was synced")
            #expect(!FileManager.default.fileExists(atPath: typo), "nor created")
        }
    }

    @Test("status and --dry-run report without changing anything")
    func dryRunChangesNothing() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", "one.md", "1\n")
            try h.write("a", "two.md", "2\n")
            let report = try await h.sync("a", ["--dry-run"])
            #expect(report.dryRun && report.uploaded == 2)
            #expect(try await h.serverNotes().isEmpty)
            let status = try await h.notes(["status", h.folder("a")])
            #expect(status.stdout.contains("2 uploaded"))
            #expect(status.stdout.contains("upload  one.md") && status.stdout.contains("upload  two.md"))
            #expect(try await h.sync("a").uploaded == 2)
        }
    }
}

extension SyncBasicsTests {
    @Test("a server publishing a smaller note limit (--max-note-size) makes sync leave a larger file alone, naming it and the limit, exit 1")
    func fileOverThePublishedNoteLimitIsLeftAlone() async throws {
        try await LiveServer.with(["--max-note-size", "1K"], account: .loggedIn) { h in
            try await h.initFolder("a")
            let big = String(repeating: "x", count: 1025)
            try h.write("a", "small.md", "fits\n")
            try h.write("a", "big.md", big)

            let report = try await h.sync("a", expect: 1)
            #expect(report.uploaded == 1)
            #expect(report.warnings.contains("left alone big.md: larger than the server's note limit of 1024 bytes"), "\(report.warnings)")
            #expect(report.skipped.map(\.reason) == [.tooLarge])
            #expect(try await h.serverNotes() == ["small.md": "fits\n"])
            #expect(h.read("a", "big.md") == big, "the file itself is untouched")
        }
    }
}
