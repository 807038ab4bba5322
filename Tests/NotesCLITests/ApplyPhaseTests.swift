import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// Carrying out the planner's decisions on its own, with a run made by hand on a real folder:
/// what it never overwrites, and where what was in the way goes (docs/architecture.md, Sync
/// invariants 1, 10).
@Suite("Apply phase")
struct ApplyPhaseTests {
    /// The server's revision 2 of `note`, holding `text`.
    private static func serverNote(_ note: TrackedNote, _ text: String, deleted: Bool = false) -> NoteResource {
        NoteResource(id: note.row.base.id, path: note.row.base.path, content: deleted ? nil : text,
                     hash: SHA256.hex(of: Array(text.utf8)), rev: 2, size: text.utf8.count,
                     createdAt: "2026-01-01T00:00:00Z", updatedAt: "2026-01-01T00:00:00Z", deleted: deleted)
    }

    /// Runs `body` on folder "a" holding clean.md and edited.md, both tracked at revision 1 in a
    /// new run as a scan found them, with edited.md changed after that scan.
    private static func withCleanAndEditedNotes(
        _ body: (LiveServer, ApplyPhase, inout SyncRun, inout TrackedNote, inout TrackedNote) async throws -> Void
    ) async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", "clean.md", "base\n")
            try h.write("a", "edited.md", "base\n")
            try await h.withEngine("a") { engine in
                var run = engine.newRun()
                var clean = try engine.trackedNote(at: "clean.md", rev: 1)
                var edited = try engine.trackedNote(at: "edited.md", rev: 1)
                run.state.track(clean)
                run.state.track(edited)
                try h.write("a", "edited.md", "an edit made while the sync runs\n")
                try await body(h, ApplyPhase(engine: engine), &run, &clean, &edited)
            }
        }
    }

    @Test("taking the server's version writes it over a clean file, and leaves a file edited since the scan alone")
    func takeRemoteNeverReplacesAnEditSinceTheScan() async throws {
        try await Self.withCleanAndEditedNotes { h, apply, run, clean, edited in
            var changes: [IndexChange] = []
            let cleanTaken = try await apply.carryOut(.takeRemote, for: &clean, remote: Self.serverNote(clean, "server\n"),
                                                      changes: &changes, in: &run)
            let editedTaken = try await apply.carryOut(.takeRemote, for: &edited, remote: Self.serverNote(edited, "server\n"),
                                                       changes: &changes, in: &run)
            #expect(cleanTaken)
            #expect(!editedTaken, "a file changed under the sync is seen again next time")
            #expect(h.read("a", "clean.md") == "server\n")
            #expect(h.read("a", "edited.md") == "an edit made while the sync runs\n")
            #expect(changes.count == 1)
            #expect(run.state[clean.row.base.id]?.row.base.rev == 2)
            #expect(run.state[edited.row.base.id]?.row.base.rev == 1)
            #expect(run.report.downloaded == 1)
        }
    }

    @Test("a delete from the server removes a clean file, and keeps a file edited since the scan")
    func deleteLocalKeepsAnEditSinceTheScan() async throws {
        try await Self.withCleanAndEditedNotes { h, apply, run, clean, edited in
            var changes: [IndexChange] = []
            let cleanDeleted = try await apply.carryOut(.deleteLocal, for: &clean, remote: Self.serverNote(clean, "", deleted: true),
                                                        changes: &changes, in: &run)
            let editedDeleted = try await apply.carryOut(.deleteLocal, for: &edited, remote: Self.serverNote(edited, "", deleted: true),
                                                         changes: &changes, in: &run)
            #expect(cleanDeleted)
            #expect(!editedDeleted, "a file changed under the sync is seen again next time")
            #expect(h.read("a", "clean.md") == nil)
            #expect(h.read("a", "edited.md") == "an edit made while the sync runs\n")
            #expect(run.state[clean.row.base.id] == nil)
            #expect(run.state[edited.row.base.id] != nil)
            #expect(run.report.deleted == 1)
        }
    }

    @Test("an untracked file where a note must go becomes a conflict copy, listed in the run's report and kept in its state")
    func untrackedFileInTheWayBecomesAConflictCopy() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", "n.md", "made here\n")
            try await h.withEngine("a") { engine in
                var run = engine.newRun()
                let apply = ApplyPhase(engine: engine)
                run.state.addUntracked(try engine.untrackedFile(at: "n.md"))
                #expect(try apply.makeRoom(at: "n.md", for: NoteID(), in: &run))
                #expect(h.read("a", "n.md") == nil)
                let conflict = try #require(run.report.conflicts.first)
                #expect(run.report.conflicts.count == 1)
                #expect(conflict.path == "n.md")
                #expect(h.read("a", conflict.copy) == "made here\n")
                #expect(run.state.untracked(at: conflict.copy) != nil)
                #expect(try engine.index.conflictRecords()[conflict.copy] != nil)
            }
        }
    }
}
