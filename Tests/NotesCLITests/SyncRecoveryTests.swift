import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// docs/architecture.md, Sync invariants 7 at the exact moments a `kill -9` or a power cut can stop a sync, and `.notes/`
/// damaged by hand: the next sync completes with no duplicate, no deletion and no loss.
///
/// The index is committed after the files it vouches for, and without a per-commit fsync, so
/// "files written, index not" is the state a crash leaves. The tests make it exactly: they save
/// the index before a sync and put it back afterwards, as if the sync's commits never happened.
@Suite("Sync recovery end to end")
struct SyncRecoveryTests {
    @Test("a sync killed after writing a remotely moved and edited note, before recording it, resumes without a duplicate")
    func resumeAfterUnrecordedRemoteMove() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.twoFolders([("inbox/idea.md", "v1\n"), ("other.md", "o\n")])
            try await h.initFolder("c")
            try await h.sync("c")
            try h.move("b", "inbox/idea.md", "done/idea.md")
            try await h.sync("b")
            try h.write("b", "done/idea.md", "v2\n")
            try await h.sync("b")
            let expected = ["done/idea.md": "v2\n", "other.md": "o\n"]
            for name in ["a", "c"] {
                let saved = try h.savedIndex(name)
                try await h.sync(name)
                try h.restoreIndex(name, saved)
            }
            // In c the kill came a moment earlier: the new file was written, the old not yet removed.
            try h.write("c", "inbox/idea.md", "v1\n")
            for name in ["a", "c"] {
                let report = try await h.sync(name)
                #expect(report.conflicts.isEmpty, "\(name): \(report)")
                #expect(try h.textTree(name) == expected, "\(name)")
            }
            #expect(try await h.serverNotes() == expected)
        }
    }

    @Test("a sync whose uploads reached the server but not the index resumes without a duplicate, a deletion or a conflict")
    func resumeAfterUnrecordedUploads() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.twoFolders([("edit.md", "v1\n"), ("move.md", "moved\n"), ("drop.md", "d\n"), ("keep.md", "k\n")])
            try h.write("a", "edit.md", "v2\n")
            try h.move("a", "move.md", "sub/moved.md")
            try h.remove("a", "drop.md")
            try h.write("a", "new.md", "new\n")
            let saved = try h.savedIndex("a")
            try await h.sync("a")
            try h.restoreIndex("a", saved)
            let report = try await h.sync("a")
            #expect(report.conflicts.isEmpty && report.deleted == 0, "\(report)")
            let expected = ["edit.md": "v2\n", "sub/moved.md": "moved\n", "keep.md": "k\n", "new.md": "new\n"]
            #expect(try h.textTree("a") == expected)
            #expect(try await h.serverNotes() == expected)
            #expect(try await h.sync("a").isNoOp)
            try await h.sync("b")
            #expect(try h.textTree("b") == expected)
        }
    }

    @Test("a deleted index: the next sync adopts every file, uploading, deleting and duplicating nothing; a corrupt one stops the sync")
    func lostOrCorruptIndex() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            let notes = ["a.md": "a\n", "f/b.md": "b\n", "f/g/c.md": "c\n"]
            try await h.twoFolders(notes.map { ($0.key, $0.value) })
            try h.remove("a", ".notes/index.sqlite")
            let report = try await h.sync("a")
            #expect(report.isNoOp, "\(report)")
            #expect(try h.textTree("a") == notes)
            #expect(try await h.serverNotes() == notes)

            try Data("this is not a database, it was damaged".utf8).write(to: URL(fileURLWithPath: h.folder("a") + "/.notes/index.sqlite"))
            let failed = try await h.notes(["sync", h.folder("a")])
            #expect(failed.exitCode == 1, "\(failed.stderr)")
            #expect(failed.stderr.contains("index"))
            #expect(try h.textTree("a") == notes)
            #expect(try await h.serverNotes() == notes)
        }
    }
}

extension LiveServer {
    /// Folders a and b, both holding `files` after syncing (a uploads, b downloads).
    func twoFolders(_ files: [(String, String)]) async throws {
        try await initFolder("a")
        for (path, text) in files { try write("a", path, text) }
        try await sync("a")
        try await initFolder("b")
        try await sync("b")
    }

    /// The bytes of folder `name`'s index files (the database and any WAL beside it).
    func savedIndex(_ name: String) throws -> [String: Data] {
        let state = folder(name) + "/.notes"
        var saved: [String: Data] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: state) where file.hasPrefix("index.sqlite") {
            saved[file] = try Data(contentsOf: URL(fileURLWithPath: state + "/" + file))
        }
        return saved
    }

    /// Puts back an index saved by `savedIndex`, as if no commit since had happened.
    func restoreIndex(_ name: String, _ saved: [String: Data]) throws {
        let state = folder(name) + "/.notes"
        for file in try FileManager.default.contentsOfDirectory(atPath: state) where file.hasPrefix("index.sqlite") {
            try FileManager.default.removeItem(atPath: state + "/" + file)
        }
        for (file, data) in saved { try data.write(to: URL(fileURLWithPath: state + "/" + file)) }
    }
}

/// Forwards to the real server but loses the answer of every batch, as a `kill -9` or a dropped
/// connection between the server's commit and the client's index update would.
struct AnswerLostRemote: SyncRemote {
    let base: any SyncRemote

    func changes(since: String?, limit: Int, includeContent: Bool) async throws -> ChangesPage {
        try await base.changes(since: since, limit: limit, includeContent: includeContent)
    }

    func batch(_ operations: [BatchOperation]) async throws -> BatchResponse {
        _ = try await base.batch(operations)
        throw URLError(.networkConnectionLost)
    }

    func revision(id: NoteID, rev: Int64) async throws -> RevisionResource? { try await base.revision(id: id, rev: rev) }


    func noteLimit() async -> Int { await base.noteLimit() }
}

extension SyncRecoveryTests {
    @Test("new notes created on the server whose answer was lost, then renamed before the next sync, stay one note each")
    func renameAfterLostCreateAnswer() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.twoFolders([("seed.md", "s\n")])
            try h.write("a", "draft.md", "a new idea\n")
            await #expect(throws: URLError.self) {
                _ = try await h.syncInProcess("a", wrap: { AnswerLostRemote(base: $0) })
            }
            try h.move("a", "draft.md", "ideas/final.md")
            let report = try await h.sync("a")
            #expect(report.conflicts.isEmpty, "\(report)")
            let expected = ["seed.md": "s\n", "ideas/final.md": "a new idea\n"]
            #expect(try h.textTree("a") == expected)
            #expect(try await h.serverNotes() == expected)
        }
    }
}
