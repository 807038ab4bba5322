import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// The pull on its own, driven against the real server with a run made by hand: what it writes,
/// what it records in the index and in the run (docs/architecture.md, section 4.3; Sync
/// invariants 7).
@Suite("Pull phase")
struct PullPhaseTests {
    /// Runs `body` with folder b's engine, a new run and a pull, once folder a sent x.md to the
    /// server.
    private static func withNoteFromAnotherFolder(_ body: (LiveServer, SyncEngine, PullPhase, inout SyncRun) async throws -> Void) async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try await h.initFolder("b")
            try h.write("a", "x.md", "from a\n")
            try await h.sync("a")
            try await h.withEngine("b") { engine in
                var run = engine.newRun()
                try await body(h, engine, PullPhase(engine: engine, apply: ApplyPhase(engine: engine)), &run)
            }
        }
    }

    @Test("a pull writes the server's new note, tracks it in the run and records it in the index with the cursor")
    func pullWritesTracksAndRecords() async throws {
        try await Self.withNoteFromAnotherFolder { h, engine, pull, run in
            let caughtUp = try await pull.pullResyncing(metadataFirst: false, in: &run)
            #expect(caughtUp)
            #expect(h.read("b", "x.md") == "from a\n")
            #expect(run.report.downloaded == 1)
            let id = try #require(run.state.trackedID(at: "x.md"))
            #expect(run.state[id]?.row.base.rev == 1)
            let rows = try engine.index.rows()
            #expect(rows.map(\.base.path) == ["x.md"])
            #expect(rows.first?.base.id == id)
            #expect(try engine.index.cursor() != nil)
        }
    }

    @Test("a second pull from the stored cursor writes nothing and downloads nothing")
    func pullFromStoredCursorIsANoOp() async throws {
        try await Self.withNoteFromAnotherFolder { h, engine, pull, run in
            try await pull.pullResyncing(metadataFirst: false, in: &run)
            let cursor = try engine.index.cursor()
            let requests = run.report.changesRequests
            try await pull.pullResyncing(metadataFirst: false, in: &run)
            #expect(run.report.downloaded == 1)
            #expect(run.report.changesRequests == requests + 1)
            #expect(try engine.index.cursor() == cursor)
            #expect(run.report.changes.count == 1)
            #expect(h.read("b", "x.md") == "from a\n")
        }
    }

    @Test("a pull that would delete most tracked notes stops before deleting any, with the count in the report")
    func pullStopsAtARemoteMassDelete() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try await h.initFolder("b")
            for i in 0..<4 { try h.write("a", "n\(i).md", "note \(i)\n") }
            try await h.sync("a")
            try await h.sync("b")
            for i in 0..<4 { try h.remove("a", "n\(i).md") }
            try await h.sync("a", ["--allow-mass-delete"])
            try await h.withEngine("b") { engine in
                var run = engine.newRun()
                for row in try engine.index.rows() {
                    run.state.track(try engine.trackedNote(at: row.base.path, rev: row.base.rev, id: row.base.id))
                }
                let pull = PullPhase(engine: engine, apply: ApplyPhase(engine: engine))
                await #expect(throws: MassDeleteRefusal.self) {
                    try await pull.pullResyncing(metadataFirst: false, in: &run)
                }
                #expect(run.report.massDelete?.deleting == 4)
                #expect(run.report.massDelete?.side == .remote)
                #expect(run.report.deleted == 0)
                for i in 0..<4 { #expect(h.read("b", "n\(i).md") == "note \(i)\n") }
            }
        }
    }
}
