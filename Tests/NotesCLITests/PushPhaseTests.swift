import Foundation
import NotesCore
import NotesTestSupport
import Testing
@testable import notes_cli

/// The push on its own, driven against the real server with a run made by hand: what it sends,
/// what it records, and what it leaves for the next sync (docs/architecture.md, section 4.3;
/// Sync invariants 7).
@Suite("Push phase")
struct PushPhaseTests {
    @Test("a push sends the run's new file, and records its id and the server's revision in the run and the index")
    func pushSendsANewFileAndRecordsIt() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", "new.md", "made here\n")
            try await h.withEngine("a") { engine in
                var run = engine.newRun()
                run.state.addUntracked(try engine.untrackedFile(at: "new.md"))
                var push = PushPhase(engine: engine, apply: ApplyPhase(engine: engine))
                #expect(try await push.push(in: &run))
                #expect(run.report.uploaded == 1)
                #expect(!run.state.hasUntracked)
                let id = try #require(run.state.trackedID(at: "new.md"))
                #expect(run.state[id]?.row.base.rev == 1)
                let rows = try engine.index.rows()
                #expect(rows.map(\.base.id) == [id])
                #expect(rows.first?.base.rev == 1)
            }
            #expect(try await h.serverNotes() == ["new.md": "made here\n"])
        }
    }

    @Test("an upload the push left for the next sync is not sent in this one; the others are")
    func skippedUploadIsNotSent() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", "kept.md", "left for later\n")
            try h.write("a", "sent.md", "sent now\n")
            try await h.withEngine("a") { engine in
                var run = engine.newRun()
                let kept = try engine.trackedNote(at: "kept.md", rev: 0)
                run.state.track(kept)
                run.state.track(try engine.trackedNote(at: "sent.md", rev: 0))
                var push = PushPhase(engine: engine, apply: ApplyPhase(engine: engine))
                push.skippedUploads.insert(kept.row.base.id)
                #expect(try await push.push(in: &run))
                #expect(run.report.uploaded == 1)
                #expect(run.state[kept.row.base.id]?.row.base.rev == 0)
            }
            #expect(try await h.serverNotes() == ["sent.md": "sent now\n"])
        }
    }

    @Test("the push sends the text the scan kept for a file whose metadata has not moved since, without reading the file again")
    func pushSendsTheScannedText() async throws {
        try await LiveServer.with(account: .loggedIn) { h in
            try await h.initFolder("a")
            try h.write("a", "n.md", "on disk\n")
            try await h.withEngine("a") { engine in
                var run = engine.newRun()
                var snapshot = LocalSnapshot()
                var file = try engine.untrackedFile(at: "n.md")
                file.hash = SHA256.hex(of: Array("as scanned\n".utf8))
                snapshot.untracked = [file]
                snapshot.texts = ScannedTexts(capacity: 1 << 20, keepModifiedBefore: .max)
                snapshot.texts.keep("as scanned\n", hash: file.hash, stat: file.stat, at: "n.md")
                var push = PushPhase(engine: engine, apply: ApplyPhase(engine: engine))
                push.takeScanned(&snapshot)
                #expect(snapshot.texts.take("n.md") == nil, "the snapshot lets go of the texts it handed over")
                run.state = FolderState(snapshot: snapshot, caseInsensitive: false)
                #expect(try await push.push(in: &run))
                #expect(run.report.uploaded == 1)
            }
            #expect(try await h.serverNotes() == ["n.md": "as scanned\n"])
        }
    }
}
