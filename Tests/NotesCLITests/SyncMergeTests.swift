import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// Concurrent edits, edit versus delete, and renames: docs/architecture.md, Sync invariants 1–5 over the real server.
@Suite("Sync merges, deletes and renames end to end")
struct SyncMergeTests {
    /// Two folders, a and b, both holding `files` after syncing.
    private func twoFolders(_ h: LiveServer, _ files: [(String, String)]) async throws {
        try await h.initFolder("a")
        for (path, text) in files { try h.write("a", path, text) }
        try await h.sync("a")
        try await h.initFolder("b")
        try await h.sync("b")
    }

    @Test("edits to different parts of a note merge, and the merge reaches both sides")
    func cleanMergeAppliedOnBothSides() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await twoFolders(h, [("n.md", "one\r\ntwo\r\nthree\r\nfour\r\nfive\r\n")])
            try h.write("a", "n.md", "ONE\r\ntwo\r\nthree\r\nfour\r\nfive\r\n")
            try h.write("b", "n.md", "one\r\ntwo\r\nthree\r\nfour\r\nFIVE\r\n")
            try await h.sync("a")
            let report = try await h.sync("b")
            #expect(report.merged == 1 && report.conflicts.isEmpty)
            let merged = "ONE\r\ntwo\r\nthree\r\nfour\r\nFIVE\r\n"
            #expect(h.read("b", "n.md") == merged)
            try await h.sync("a")
            #expect(h.read("a", "n.md") == merged)
            #expect(try await h.serverNotes() == ["n.md": merged])
        }
    }

    @Test("overlapping edits keep the server's version at the path and the local one as a conflict copy (exit 3)")
    func overlappingEditsLeaveAConflictCopy() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await twoFolders(h, [("notes/todo.md", "milk\neggs\n")])
            try h.write("a", "notes/todo.md", "milk\nbread\n")
            try h.write("b", "notes/todo.md", "milk\ncheese\n")
            try await h.sync("a")
            let report = try await h.sync("b", expect: 3)
            #expect(report.conflicts.count == 1)
            let copy = try #require(report.conflicts.first?.copy)
            #expect(report.conflicts.first?.reason == .overlappingEdit && report.conflicts.first?.path == "notes/todo.md")
            #expect(copy.hasPrefix("notes/todo.conflict-b-") && copy.hasSuffix(".md"))
            #expect(h.read("b", "notes/todo.md") == "milk\nbread\n")
            #expect(h.read("b", copy) == "milk\ncheese\n")
            try await h.sync("a")
            #expect(h.read("a", copy) == "milk\ncheese\n")
            #expect(try await h.serverNotes() == ["notes/todo.md": "milk\nbread\n", copy: "milk\ncheese\n"])
            #expect(try await h.sync("b").isNoOp)
        }
    }

    @Test("a local edit beats a remote delete: the note is restored on the server")
    func localEditBeatsRemoteDelete() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await twoFolders(h, [("keep.md", "v1\n"), ("other.md", "o\n")])
            try h.remove("a", "keep.md")
            try await h.sync("a")
            try h.write("b", "keep.md", "v2 edited\n")
            try await h.sync("b")
            #expect(try await h.serverNotes()["keep.md"] == "v2 edited\n")
            try await h.sync("a")
            #expect(h.read("a", "keep.md") == "v2 edited\n")
        }
    }

    @Test("a remote edit beats a local delete: the file comes back; deleted on both is fine")
    func remoteEditBeatsLocalDelete() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await twoFolders(h, [("keep.md", "v1\n"), ("gone.md", "g\n"), ("other.md", "o\n")])
            try h.write("a", "keep.md", "v2\n")
            try h.remove("a", "gone.md")
            try await h.sync("a")
            try h.remove("b", "keep.md")
            try h.remove("b", "gone.md")
            try await h.sync("b")
            #expect(h.read("b", "keep.md") == "v2\n")
            #expect(h.read("b", "gone.md") == nil)
            #expect(try await h.serverNotes() == ["keep.md": "v2\n", "other.md": "o\n"])
        }
    }

    @Test("renames and moves keep the note id and its history, even with an edit on the other side")
    func renamesKeepIdentity() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await twoFolders(h, [("inbox/idea.md", "line 1\nline 2\nline 3\n"), ("x.md", "x\n")])
            let id = try #require(try await h.serverResources()["inbox/idea.md"]?.id)
            try h.move("a", "inbox/idea.md", "projects/2025/idea-renamed.md")
            let report = try await h.sync("a")
            #expect(report.renamed == 1 && report.uploaded == 0 && report.deleted == 0, "\(report)")
            #expect(try await h.serverResources()["projects/2025/idea-renamed.md"]?.id == id)
            // b edited the old path meanwhile: the edit follows the note to its new path.
            try h.write("b", "inbox/idea.md", "line 1\nline 2 edited\nline 3\n")
            try await h.sync("b")
            #expect(h.read("b", "inbox/idea.md") == nil)
            #expect(!FileManager.default.fileExists(atPath: h.folder("b") + "/inbox"))  // the emptied folder went too
            #expect(h.read("b", "projects/2025/idea-renamed.md") == "line 1\nline 2 edited\nline 3\n")
            try await h.sync("a")
            #expect(h.read("a", "projects/2025/idea-renamed.md") == "line 1\nline 2 edited\nline 3\n")
            let history = try await h.apiClient().json(RevisionList.self, APIRequest("GET", "/v1/notes/\(id.value)/revisions"))
            #expect(history.revisions.count == 3)
        }
    }

    @Test("skewed clocks do not matter: a file dated in the past or future syncs on content alone")
    func clocksAreNeverCompared() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await twoFolders(h, [("t.md", "old\n")])
            try h.write("a", "t.md", "new from a\n")
            let past = Date(timeIntervalSince1970: 86_400)  // 1970: any clock comparison would lose this edit
            try FileManager.default.setAttributes([.modificationDate: past], ofItemAtPath: h.folder("a") + "/t.md")
            try await h.sync("a")
            try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSinceNow: 10 * 365 * 86_400)],
                                                  ofItemAtPath: h.folder("b") + "/t.md")
            try await h.sync("b")
            #expect(h.read("b", "t.md") == "new from a\n")
        }
    }
}
