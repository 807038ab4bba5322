import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

#if canImport(Glibc)
import Glibc
#endif

/// The unlucky user and the odd folder: edits the metadata check cannot see, files that are not
/// notes in a note's way, very long paths, renames of every kind, and identical or clashing
/// creates on two devices (docs/architecture.md, Sync invariants 1, 4, 6, 8, 11).
@Suite("Sync hazards end to end")
struct SyncHazardTests {
    @Test("an edit the metadata check cannot see (same size, mtime and inode) is never overwritten by a remote edit")
    func editHiddenFromMetadataSurvivesRemoteEdit() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.twoFolders([("n.md", "line one\nline two\n"), ("other.md", "o\n")])
            // Written in place, same length, and the old mtime put back (`touch -r`, `cp -p` onto
            // the file, or a save within one tick of a coarse clock): the index sees no change.
            try Self.overwriteKeepingMetadata(h.folder("b") + "/n.md", with: "LINE ONE\nline two\n")
            try h.write("a", "n.md", "line one\nline two\nline three from a\n")
            try await h.sync("a")
            try await h.sync("b")
            #expect(h.read("b", "n.md") == "LINE ONE\nline two\nline three from a\n")
            try await h.sync("a")
            #expect(try await h.serverNotes()["n.md"] == "LINE ONE\nline two\nline three from a\n")
        }
    }

    @Test("the same hidden edit survives a remote delete: the note is uploaded again, not removed")
    func editHiddenFromMetadataSurvivesRemoteDelete() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.twoFolders([("n.md", "draft\n"), ("x.md", "x\n"), ("y.md", "y\n")])
            try Self.overwriteKeepingMetadata(h.folder("b") + "/n.md", with: "DRAFT\n")
            try h.remove("a", "n.md")
            try await h.sync("a")
            try await h.sync("b")
            #expect(h.read("b", "n.md") == "DRAFT\n")
            #expect(try await h.serverNotes()["n.md"] == "DRAFT\n")
        }
    }

    @Test("a file sync cannot read as a note, in a server note's way, is kept aside and does not stop later changes")
    func unsyncableFileInTheWayDoesNotStallTheFeed() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.twoFolders([("seed.md", "s\n")])
            try h.write("b", "p.md", "from b\n")
            try await h.sync("b")
            try h.write("b", "q.md", "later\n")
            try await h.sync("b")
            let latin1 = Data([0x63, 0x61, 0x66, 0xE9, 0x0A])  // "café" in Latin-1: not UTF-8, so never a note
            try h.write("a", "p.md", latin1)
            var options = SyncOptions()
            options.pageSize = 1  // p.md and q.md on separate pages: a stuck page would keep q.md away
            _ = try await h.syncInProcess("a", options: options)
            #expect(h.read("a", "q.md") == "later\n")
            #expect(h.read("a", "p.md") == "from b\n")
            #expect(try h.tree("a").values.contains(latin1))
            let again = try await h.syncInProcess("a", options: options)
            #expect(again.downloaded == 0 && again.changesRequests == 1, "\(again)")
        }
    }

    @Test("a new server note whose place holds a folder is left alone with a warning (the write finds the place taken and writes nothing over it), and later pages still arrive")
    func folderInTheWayOfANewNoteIsLeftAlone() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.twoFolders([("seed.md", "s\n")])
            try h.write("b", "dir.md", "a note\n")
            try await h.sync("b")
            try h.write("b", "later.md", "later\n")
            try await h.sync("b")
            // The scan sees no note at dir.md in a: only an empty folder with that name.
            try FileManager.default.createDirectory(atPath: h.folder("a") + "/dir.md", withIntermediateDirectories: false)
            var options = SyncOptions()
            options.pageSize = 1  // dir.md and later.md on separate pages: a stuck page would keep later.md away
            let report = try await h.syncInProcess("a", options: options)
            #expect(report.warnings.contains("left alone dir.md: something that is not a note file is in the way"), "\(report.warnings)")
            var isFolder: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: h.folder("a") + "/dir.md", isDirectory: &isFolder) && isFolder.boolValue)
            #expect(try FileManager.default.contentsOfDirectory(atPath: h.folder("a") + "/dir.md").isEmpty)
            #expect(h.read("a", "later.md") == "later\n")
            #expect(try FileManager.default.contentsOfDirectory(atPath: h.folder("a") + "/.notes/tmp").isEmpty,
                    "the note written for the taken place was not left behind")
        }
    }

    @Test("a conflict copy of a note with a path near the 1 KB limit gets a valid name and reaches the server")
    func conflictCopyOfAVeryLongPathSyncs() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            let deep = (0..<4).map { String(repeating: "\($0)", count: 250) }.joined(separator: "/") + "/n.md"
            try await h.twoFolders([(deep, "base\n")])
            try h.write("a", deep, "from a\n")
            try h.write("b", deep, "from b\n")
            try await h.sync("a")
            let report = try await h.sync("b", expect: 3)
            let copy = try #require(report.conflicts.first?.copy)
            #expect((try? NotePath(copy)) != nil, "\(copy)")
            #expect(report.warnings.isEmpty, "\(report.warnings)")
            #expect(try await h.serverNotes() == [deep: "from a\n", copy: "from b\n"])
        }
    }

    @Test("identical edits and identical creates on two devices make no conflict copy; different creates keep both")
    func identicalAndClashingCreates() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.twoFolders([("n.md", "one\n")])
            for name in ["a", "b"] {
                try h.write(name, "n.md", "one\ntwo\n")
                try h.write(name, "same.md", "same\r\n")
                try h.write(name, "clash.md", "from \(name)\n")
            }
            try await h.sync("a")
            let report = try await h.sync("b", expect: 3)
            #expect(report.conflicts.count == 1 && report.conflicts[0].copy.hasPrefix("clash.conflict-b-")
                    && report.conflicts[0].reason == .overlappingEdit, "\(report)")
            try await h.sync("a")
            let server = try await h.serverNotes()
            #expect(server.count == 4)
            #expect(server["n.md"] == "one\ntwo\n" && server["same.md"] == "same\r\n" && server["clash.md"] == "from a\n")
            #expect(try h.textTree("a") == server && (try h.textTree("b")) == server)
        }
    }

    @Test("a case-only rename and a folder of 25 notes moved are renames: same ids, nothing deleted, no mass-delete stop")
    func caseOnlyAndFolderRenames() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            var files = [("Readme.md", "read me\n")]
            for i in 0..<25 { files.append(("project/n\(i).md", "note \(i)\n")) }
            try await h.twoFolders(files)
            let before = try await h.serverResources()
            try h.move("a", "Readme.md", "README.md")
            try h.move("a", "project", "archive/2024/project")
            let report = try await h.sync("a")
            #expect(report.renamed == 26 && report.deleted == 0 && report.uploaded == 0, "\(report)")
            let after = try await h.serverResources()
            #expect(after["README.md"]?.id == before["Readme.md"]?.id)
            #expect(after["archive/2024/project/n7.md"]?.id == before["project/n7.md"]?.id)
            #expect(after.count == 26)
            try await h.sync("b")
            #expect(try h.textTree("b") == (try h.textTree("a")))
            #expect(!FileManager.default.fileExists(atPath: h.folder("b") + "/project"))
        }
    }

    @Test("a note file swapped for a symlink or a folder during a sync: nothing is written through or over it")
    func fileSwappedDuringSyncIsNotWrittenThrough() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.twoFolders([("link.md", "l1\n"), ("dir.md", "d1\n"), ("other.md", "o\n")])
            try h.write("b", "link.md", "l2 from b\n")
            try h.write("b", "dir.md", "d2 from b\n")
            try await h.sync("b")
            let outside = h.work.appending("outside.md").path
            try Data("outside\n".utf8).write(to: URL(fileURLWithPath: outside))
            let root = h.folder("a")
            _ = try await h.syncInProcess("a", wrap: { remote in
                SyncSafetyTests.HookedRemote(base: remote, hook: {
                    unlink(root + "/link.md")
                    symlink(outside, root + "/link.md")
                    unlink(root + "/dir.md")
                    mkdir(root + "/dir.md", 0o755)
                })
            })
            #expect(FileManager.default.contents(atPath: outside) == Data("outside\n".utf8))
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: root + "/link.md") == outside)
            var isFolder: ObjCBool = false
            #expect(FileManager.default.fileExists(atPath: root + "/dir.md", isDirectory: &isFolder) && isFolder.boolValue)
            #expect(try await h.serverNotes()["link.md"] == "l2 from b\n")
        }
    }

    /// Rewrites `path` in place with `text` of the same length and puts its old modification
    /// time back, so size, mtime and inode all read as before.
    static func overwriteKeepingMetadata(_ path: String, with text: String) throws {
        var before = stat()
        #expect(lstat(path, &before) == 0)
        #expect(before.st_size == text.utf8.count)
        let fd = open(path, O_WRONLY)
        #expect(fd >= 0)
        _ = text.utf8CString.withUnsafeBytes { write(fd, $0.baseAddress!, text.utf8.count) }
        let times = [before.st_atim, before.st_mtim]
        #expect(futimens(fd, times) == 0)
        close(fd)
        var after = stat()
        #expect(lstat(path, &after) == 0)
        #expect(after.st_ino == before.st_ino && after.st_size == before.st_size
            && after.st_mtim.tv_sec == before.st_mtim.tv_sec && after.st_mtim.tv_nsec == before.st_mtim.tv_nsec)
    }
}

/// A server that lies about its feed (docs/architecture.md, Sync invariants 7, 8).
@Suite("Sync against a hostile feed")
struct SyncHostileFeedTests {
    @Test("a feed page naming one note twice at two paths leaves one file, at the later path")
    func sameIdTwiceInOnePage() async throws {
        let work = try TemporaryDirectory("notes-hostile-twice")
        defer { work.remove() }
        let id = NoteID()
        func note(_ path: String, _ text: String, rev: Int64) -> NoteResource {
            NoteResource(id: id, path: path, content: text, hash: SHA256.hex(of: text), rev: rev, size: text.utf8.count,
                         createdAt: "", updatedAt: "", deleted: false)
        }
        let feed = try WireJSON.encoder().encode(ChangesPage(changes: [note("first.md", "one\n", rev: 1), note("second.md", "two\n", rev: 2)],
                                                             cursor: "2", hasMore: false))
        let emptyFeed = try WireJSON.encoder().encode(ChangesPage(changes: [], cursor: "2", hasMore: false))
        let server = try ScriptedHTTPServer { request in
            switch request.path {
            case "/v1/changes": .respond(status: 200, headers: ["Content-Type": "application/json"],
                                         body: request.query.contains("since=2") ? emptyFeed : feed)
            case "/v1/me": .json(200, #"{"id":1,"username":"ada","created_at":"2026-01-01T00:00:00.000Z"}"#)  // NOTES_TOKEN's owner, for the binding
            default: .error(404, "not_found", "No such thing.")
            }
        }
        defer { server.stop() }
        let environment = ["HOME": work.path, "XDG_CONFIG_HOME": work.appending("config").path, "NOTES_TOKEN": "npt_scripted"]
        let folder = work.appending("folder").path
        _ = try await ProcessRunner.run(BuiltProducts.client, ["init", folder, "--server", server.baseURL], environment: environment)
        for _ in 0..<2 {
            let result = try await ProcessRunner.run(BuiltProducts.client, ["sync", folder, "--json"], environment: environment)
            #expect(result.exitCode == 0, "\(result.stderr)")
        }
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0 != ".notes" }
        #expect(files == ["second.md"])
        #expect(FileManager.default.contents(atPath: folder + "/second.md") == Data("two\n".utf8))
        #expect(!server.requests.contains { $0.path == "/v1/batch" })  // nothing to upload: no phantom create or delete
    }
}
